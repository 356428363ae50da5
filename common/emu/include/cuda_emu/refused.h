/*
 * cuda_emu/refused.h -- valid CUDA the emulator does not run, declared so that a file using it
 * compiles up to the use and stops there with the emulator's refusal ("cannot be checked on the
 * CPU emulator: FEATURE"), which emu-nvcc reports at the line of the call (README.md,
 * Refusals): the file is not wrong, a GPU grades it. Without these declarations such a file
 * would fail as any file with an undeclared name does, which reads as the file's own error.
 *
 * The types are CUDA 13's (driver_types.h, texture_types.h, surface_types.h), so that code
 * filling them compiles; the functions are declared as templates that take any arguments (the
 * CUDA 12 and 13 forms alike) and marked CUDA_EMU_REFUSED: a call that is compiled is the
 * refusal, one that is not (fenced off with #ifndef CUDA_EMU, never instantiated) costs
 * nothing. Included by cuda_runtime_api.h; the functions in C++ only.
 */
#ifndef CUDA_EMU_REFUSED_H
#define CUDA_EMU_REFUSED_H

#include <stddef.h>

/* ---- 3D copies, CUDA arrays, textures and surfaces ------------------------------------ */
struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };
struct cudaPitchedPtr { void *ptr; size_t pitch; size_t xsize; size_t ysize; };
enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3
};
struct cudaChannelFormatDesc { int x, y, z, w; enum cudaChannelFormatKind f; };
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    enum cudaMemcpyKind kind;
};
enum cudaResourceType {
    cudaResourceTypeArray = 0,
    cudaResourceTypeMipmappedArray = 1,
    cudaResourceTypeLinear = 2,
    cudaResourceTypePitch2D = 3
};
struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct { cudaArray_t array; } array;
        struct { cudaMipmappedArray_t mipmap; } mipmap;
        struct { void *devPtr; struct cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width, height, pitchInBytes;
        } pitch2D;
        struct { int reserved[32]; } reserved;
    } res;
    unsigned int flags;
};
enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaSurfaceBoundaryMode {
    cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2
};
struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
#define cudaArrayDefault 0x00
#define cudaArraySurfaceLoadStore 0x02

/* the pure helpers: they only fill a struct */
static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
    struct cudaExtent e = {w, h, d};
    return e;
}
static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
    struct cudaPos p = {x, y, z};
    return p;
}
static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
    struct cudaPitchedPtr s = {d, p, xsz, ysz};
    return s;
}

/* ---- graphs: updating an instantiated graph, conditional nodes, other node kinds ------- */
enum cudaGraphExecUpdateResult {
    cudaGraphExecUpdateSuccess = 0x0,
    cudaGraphExecUpdateError = 0x1,
    cudaGraphExecUpdateErrorTopologyChanged = 0x2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
    cudaGraphExecUpdateErrorFunctionChanged = 0x4,
    cudaGraphExecUpdateErrorParametersChanged = 0x5,
    cudaGraphExecUpdateErrorNotSupported = 0x6,
    cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
    cudaGraphExecUpdateErrorAttributesChanged = 0x8
};
typedef struct cudaGraphExecUpdateResultInfo_st {
    enum cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode;
    cudaGraphNode_t errorFromNode;
} cudaGraphExecUpdateResultInfo;
typedef unsigned long long cudaGraphConditionalHandle;
enum cudaGraphConditionalNodeType {
    cudaGraphCondTypeIf = 0, cudaGraphCondTypeWhile = 1, cudaGraphCondTypeSwitch = 2
};
#define cudaGraphCondAssignDefault 1
struct cudaConditionalNodeParams {
    cudaGraphConditionalHandle handle;
    enum cudaGraphConditionalNodeType type;
    unsigned int size;
    cudaGraph_t *phGraph_out;
};
struct cudaGraphNodeParams {
    enum cudaGraphNodeType type;
    int reserved0[3];
    union {
        long long reserved1[29];
        struct cudaMemsetParams memset;
        struct cudaConditionalNodeParams conditional;
    };
    long long reserved2;
};

#ifdef __cplusplus
#define CUDA_EMU_REFUSE_HOST(name, feature) \
    template <class... A> cudaError_t name(A...) CUDA_EMU_REFUSED(#name " (" feature ")");
#define CUDA_EMU_REFUSE_ARRAY(name) CUDA_EMU_REFUSE_HOST(name, "CUDA arrays, textures and surfaces")
#define CUDA_EMU_REFUSE_3D(name) CUDA_EMU_REFUSE_HOST(name, "3D copies and pitched 3D allocations")
#define CUDA_EMU_REFUSE_GRAPH(name, what) CUDA_EMU_REFUSE_HOST(name, what)

CUDA_EMU_REFUSE_3D(cudaMalloc3D)
CUDA_EMU_REFUSE_3D(cudaMemcpy3D)
CUDA_EMU_REFUSE_3D(cudaMemcpy3DAsync)
CUDA_EMU_REFUSE_3D(cudaMemcpy3DPeer)
CUDA_EMU_REFUSE_3D(cudaMemcpy3DPeerAsync)
CUDA_EMU_REFUSE_3D(cudaMemset3D)
CUDA_EMU_REFUSE_3D(cudaMemset3DAsync)
CUDA_EMU_REFUSE_ARRAY(cudaMallocArray)
CUDA_EMU_REFUSE_ARRAY(cudaMalloc3DArray)
CUDA_EMU_REFUSE_ARRAY(cudaMallocMipmappedArray)
CUDA_EMU_REFUSE_ARRAY(cudaFreeArray)
CUDA_EMU_REFUSE_ARRAY(cudaMemcpyToArray)
CUDA_EMU_REFUSE_ARRAY(cudaMemcpyFromArray)
CUDA_EMU_REFUSE_ARRAY(cudaMemcpy2DToArray)
CUDA_EMU_REFUSE_ARRAY(cudaMemcpy2DToArrayAsync)
CUDA_EMU_REFUSE_ARRAY(cudaMemcpy2DFromArray)
CUDA_EMU_REFUSE_ARRAY(cudaMemcpy2DFromArrayAsync)
CUDA_EMU_REFUSE_ARRAY(cudaCreateTextureObject)
CUDA_EMU_REFUSE_ARRAY(cudaDestroyTextureObject)
CUDA_EMU_REFUSE_ARRAY(cudaCreateSurfaceObject)
CUDA_EMU_REFUSE_ARRAY(cudaDestroySurfaceObject)
template <class... A>
struct cudaChannelFormatDesc cudaCreateChannelDesc(A...)
    CUDA_EMU_REFUSED("cudaCreateChannelDesc (CUDA arrays, textures and surfaces)");

CUDA_EMU_REFUSE_GRAPH(cudaGraphExecUpdate, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphExecKernelNodeSetParams, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphExecMemcpyNodeSetParams, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphExecMemcpyNodeSetParams1D, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphExecMemsetNodeSetParams, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphExecHostNodeSetParams, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphExecChildGraphNodeSetParams, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphExecEventRecordNodeSetEvent, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphExecEventWaitNodeSetEvent, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphExecNodeSetParams, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphNodeSetEnabled, "updating an instantiated graph")
CUDA_EMU_REFUSE_GRAPH(cudaGraphKernelNodeSetParams, "changing a graph's node")
CUDA_EMU_REFUSE_GRAPH(cudaGraphMemcpyNodeSetParams, "changing a graph's node")
CUDA_EMU_REFUSE_GRAPH(cudaGraphMemsetNodeSetParams, "changing a graph's node")
CUDA_EMU_REFUSE_GRAPH(cudaGraphNodeSetParams, "changing a graph's node")
CUDA_EMU_REFUSE_GRAPH(cudaGraphConditionalHandleCreate, "conditional graph nodes")
CUDA_EMU_REFUSE_GRAPH(cudaGraphAddNode, "graph nodes by their generic parameters, conditional nodes")
CUDA_EMU_REFUSE_GRAPH(cudaGraphAddChildGraphNode, "graphs inside graphs")
CUDA_EMU_REFUSE_GRAPH(cudaGraphAddMemAllocNode, "memory allocation nodes")
CUDA_EMU_REFUSE_GRAPH(cudaGraphAddMemFreeNode, "memory allocation nodes")
CUDA_EMU_REFUSE_GRAPH(cudaGraphAddMemcpyNode, "3D copy nodes")
CUDA_EMU_REFUSE_GRAPH(cudaGraphAddEventRecordNode, "event nodes")
CUDA_EMU_REFUSE_GRAPH(cudaGraphAddEventWaitNode, "event nodes")
CUDA_EMU_REFUSE_GRAPH(cudaGraphClone, "cloning a graph")
CUDA_EMU_REFUSE_GRAPH(cudaStreamBeginCaptureToGraph, "capturing into an existing graph")
CUDA_EMU_REFUSE_GRAPH(cudaStreamUpdateCaptureDependencies, "changing a capture's dependencies")

CUDA_EMU_REFUSE_HOST(cudaOccupancyMaxActiveClusters, "thread block clusters")
CUDA_EMU_REFUSE_HOST(cudaOccupancyMaxPotentialClusterSize, "thread block clusters")

/* device side: the condition of a conditional node, texture and surface reads and writes */
template <class... A>
void cudaGraphSetConditional(A...) CUDA_EMU_REFUSED("cudaGraphSetConditional (conditional graph nodes)");
#define CUDA_EMU_REFUSE_FETCH(name)                                                              \
    template <class T, class... A> T name(A...) CUDA_EMU_REFUSED(#name " (textures)");          \
    template <class T, class... A> void name(T *, A...) CUDA_EMU_REFUSED(#name " (textures)");
CUDA_EMU_REFUSE_FETCH(tex1Dfetch)
CUDA_EMU_REFUSE_FETCH(tex1D)
CUDA_EMU_REFUSE_FETCH(tex2D)
CUDA_EMU_REFUSE_FETCH(tex3D)
CUDA_EMU_REFUSE_FETCH(tex1DLod)
CUDA_EMU_REFUSE_FETCH(tex2DLod)
CUDA_EMU_REFUSE_FETCH(tex3DLod)
CUDA_EMU_REFUSE_FETCH(tex1DLayered)
CUDA_EMU_REFUSE_FETCH(tex2DLayered)
CUDA_EMU_REFUSE_FETCH(tex2Dgather)
#define CUDA_EMU_REFUSE_SURF_READ(name)                                                          \
    template <class T, class... A> T name(A...) CUDA_EMU_REFUSED(#name " (surfaces)");          \
    template <class T, class... A> void name(T *, A...) CUDA_EMU_REFUSED(#name " (surfaces)");
#define CUDA_EMU_REFUSE_SURF_WRITE(name) \
    template <class... A> void name(A...) CUDA_EMU_REFUSED(#name " (surfaces)");
CUDA_EMU_REFUSE_SURF_READ(surf1Dread)
CUDA_EMU_REFUSE_SURF_READ(surf2Dread)
CUDA_EMU_REFUSE_SURF_READ(surf3Dread)
CUDA_EMU_REFUSE_SURF_WRITE(surf1Dwrite)
CUDA_EMU_REFUSE_SURF_WRITE(surf2Dwrite)
CUDA_EMU_REFUSE_SURF_WRITE(surf3Dwrite)
#endif /* __cplusplus */

#endif /* CUDA_EMU_REFUSED_H */
