/*
 * driver_types.h -- the CUDA runtime's enums, flags and structs, for the CPU emulator.
 *
 * Names and numeric values are CUDA 13's, so a program prints the same error
 * numbers and reads the same struct fields under emulation as on a GPU. Only
 * the part of the API the workbook can meet is here (see common/emu/README.md);
 * a program that needs more fails to compile, which is better than guessing.
 * tests/emu/test_abi.sh compares every value here with NVIDIA's header when one
 * is installed. Usable from C and C++.
 */
#ifndef CUDA_EMU_DRIVER_TYPES_H
#define CUDA_EMU_DRIVER_TYPES_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */
#define __DRIVER_TYPES_H__ /* NVIDIA's guard: headers test it to see this one is in */

#include <stddef.h>

#include "vector_types.h"

/* Error codes: a subset of enum cudaError with CUDA's values. */
enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorProfilerDisabled = 5,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidPitchValue = 12,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidHostPointer = 16,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorMissingConfiguration = 52,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorStartupFailure = 127,
    cudaErrorInvalidKernelImage = 200,
    cudaErrorDeviceUninitialized = 201,
    cudaErrorMapBufferObjectFailed = 205,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorUnsupportedLimit = 215,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorIllegalState = 401,
    cudaErrorSymbolNotFound = 500,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorContextIsDestroyed = 709,
    cudaErrorAssert = 710,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorHardwareStackError = 714,
    cudaErrorIllegalInstruction = 715,
    cudaErrorMisalignedAddress = 716,
    cudaErrorInvalidAddressSpace = 717,
    cudaErrorInvalidPc = 718,
    cudaErrorLaunchFailure = 719,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorNotPermitted = 800,
    cudaErrorNotSupported = 801,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureMerge = 902,
    cudaErrorStreamCaptureUnmatched = 903,
    cudaErrorStreamCaptureUnjoined = 904,
    cudaErrorStreamCaptureIsolation = 905,
    cudaErrorStreamCaptureImplicit = 906,
    cudaErrorCapturedEvent = 907,
    cudaErrorStreamCaptureWrongThread = 908,
    cudaErrorTimeout = 909,
    cudaErrorInvalidClusterSize = 912,
    cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

enum cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3
};

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
    cudaFuncAttributeClusterDimMustBeSet = 10,
    cudaFuncAttributeRequiredClusterWidth = 11,
    cudaFuncAttributeRequiredClusterHeight = 12,
    cudaFuncAttributeRequiredClusterDepth = 13,
    cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
    cudaFuncAttributeClusterSchedulingPolicyPreference = 15
};

enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};

/* cudaFuncAttributePreferredSharedMemoryCarveout values (percent otherwise). */
enum cudaSharedCarveout {
    cudaSharedmemCarveoutDefault = -1,
    cudaSharedmemCarveoutMaxShared = 100,
    cudaSharedmemCarveoutMaxL1 = 0
};

/* Where memory is, for prefetches and advice. */
enum cudaMemLocationType {
    cudaMemLocationTypeInvalid = 0,
    cudaMemLocationTypeDevice = 1,
    cudaMemLocationTypeHost = 2,
    cudaMemLocationTypeHostNuma = 3,
    cudaMemLocationTypeHostNumaCurrent = 4
};
struct cudaMemLocation {
    enum cudaMemLocationType type; /* device or host */
    int id;                        /* device ordinal, or NUMA node */
};
enum cudaMemoryAdvise {
    cudaMemAdviseSetReadMostly = 1,
    cudaMemAdviseUnsetReadMostly = 2,
    cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4,
    cudaMemAdviseSetAccessedBy = 5,
    cudaMemAdviseUnsetAccessedBy = 6
};

/* Stream-ordered allocation: memory pools. */
enum cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies = 0x1,
    cudaMemPoolReuseAllowOpportunistic = 0x2,
    cudaMemPoolReuseAllowInternalDependencies = 0x3,
    cudaMemPoolAttrReleaseThreshold = 0x4,
    cudaMemPoolAttrReservedMemCurrent = 0x5,
    cudaMemPoolAttrReservedMemHigh = 0x6,
    cudaMemPoolAttrUsedMemCurrent = 0x7,
    cudaMemPoolAttrUsedMemHigh = 0x8
};
enum cudaMemAllocationType {
    cudaMemAllocationTypeInvalid = 0x0,
    cudaMemAllocationTypePinned = 0x1
};
enum cudaMemAllocationHandleType {
    cudaMemHandleTypeNone = 0x0,
    cudaMemHandleTypePosixFileDescriptor = 0x1
};
struct cudaMemPoolProps {
    enum cudaMemAllocationType allocType;         /* pinned */
    enum cudaMemAllocationHandleType handleTypes; /* none here */
    struct cudaMemLocation location;              /* the device */
    void *win32SecurityAttributes;                /* unused */
    size_t maxSize;                               /* 0: no limit */
    unsigned short usage;                         /* unused */
    unsigned char reserved[54];                   /* reserved by CUDA */
};
typedef struct CUmemPoolHandle_st *cudaMemPool_t;

enum cudaLimit {
    cudaLimitStackSize = 0x00,
    cudaLimitPrintfFifoSize = 0x01,
    cudaLimitMallocHeapSize = 0x02,
    cudaLimitDevRuntimeSyncDepth = 0x03,
    cudaLimitDevRuntimePendingLaunchCount = 0x04,
    cudaLimitMaxL2FetchGranularity = 0x05,
    cudaLimitPersistingL2CacheSize = 0x06
};

enum cudaComputeMode {
    cudaComputeModeDefault = 0,
    cudaComputeModeExclusive = 1,
    cudaComputeModeProhibited = 2,
    cudaComputeModeExclusiveProcess = 3
};

/* Device attributes: the ones a performance workbook asks for, with CUDA's values. */
enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxPitch = 11,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrClockRate = 13,
    cudaDevAttrTextureAlignment = 14,
    cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrEccEnabled = 32,
    cudaDevAttrPciBusId = 33,
    cudaDevAttrPciDeviceId = 34,
    cudaDevAttrTccDriver = 35,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrPciDomainId = 50,
    cudaDevAttrTexturePitchAlignment = 51,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrStreamPrioritiesSupported = 78,
    cudaDevAttrGlobalL1CacheSupported = 79,
    cudaDevAttrLocalL1CacheSupported = 80,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrIsMultiGpuBoard = 84,
    cudaDevAttrMultiGpuBoardGroupID = 85,
    cudaDevAttrHostNativeAtomicSupported = 86,
    cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
    cudaDevAttrPageableMemoryAccess = 88,
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrComputePreemptionSupported = 90,
    cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrCanFlushRemoteWrites = 98,
    cudaDevAttrHostRegisterSupported = 99,
    cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
    cudaDevAttrDirectManagedMemAccessFromHost = 101,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrMaxPersistingL2CacheSize = 108,
    cudaDevAttrMaxAccessPolicyWindowSize = 109,
    cudaDevAttrReservedSharedMemoryPerBlock = 111,
    cudaDevAttrMemoryPoolsSupported = 115,
    cudaDevAttrClusterLaunch = 120
};

/* Flags, with CUDA's values. */
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaIpcMemLazyEnablePeerAccess 0x01
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01
#define cudaEventWaitDefault 0x00
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)

/* Opaque handles. Streams and events are emulator objects; see runtime.cpp. */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
/* CUDA graphs: stream capture and the node API of kernels, copies, memsets, host
 * functions and empty nodes (README.md, Graphs). */
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
#define CUDART_CB
typedef void (*cudaHostFn_t)(void *userData);

/* CUDA IPC handles: 64 opaque bytes, passed between processes by value. */
#define CUDA_IPC_HANDLE_SIZE 64
typedef struct cudaIpcMemHandle_st {
    char reserved[CUDA_IPC_HANDLE_SIZE]; /* opaque */
} cudaIpcMemHandle_t;
typedef struct cudaIpcEventHandle_st {
    char reserved[CUDA_IPC_HANDLE_SIZE]; /* opaque */
} cudaIpcEventHandle_t;
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);

/* The legacy default stream and the per-thread default stream, as CUDA spells them. */
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

typedef struct CUuuid_st {
    char bytes[16]; /* device UUID; all zero for the emulated device */
} cudaUUID_t;

/* Device properties: CUDA 13's struct, same fields in the same order. */
struct cudaDeviceProp {
    char name[256];                       /* device name */
    cudaUUID_t uuid;                      /* 16-byte unique identifier */
    char luid[8];                         /* Windows only; zero */
    unsigned int luidDeviceNodeMask;      /* Windows only; zero */
    size_t totalGlobalMem;                /* global memory in bytes */
    size_t sharedMemPerBlock;             /* shared memory per block without opt-in, bytes */
    int regsPerBlock;                     /* 32-bit registers per block */
    int warpSize;                         /* threads per warp */
    size_t memPitch;                      /* largest pitch for memory copies, bytes */
    int maxThreadsPerBlock;               /* threads per block, at most */
    int maxThreadsDim[3];                 /* largest block extent per axis */
    int maxGridSize[3];                   /* largest grid extent per axis */
    size_t totalConstMem;                 /* constant memory in bytes */
    int major;                            /* compute capability, major */
    int minor;                            /* compute capability, minor */
    size_t textureAlignment;              /* texture alignment, bytes */
    size_t texturePitchAlignment;         /* pitch alignment for 2D textures, bytes */
    int multiProcessorCount;              /* streaming multiprocessors */
    int integrated;                       /* 1 if integrated with the host */
    int canMapHostMemory;                 /* 1 if host memory can be mapped */
    int maxTexture1D;                     /* texture limits: unused by the workbook */
    int maxTexture1DMipmap;               /* (ditto) */
    int maxTexture2D[2];                  /* (ditto) */
    int maxTexture2DMipmap[2];            /* (ditto) */
    int maxTexture2DLinear[3];            /* (ditto) */
    int maxTexture2DGather[2];            /* (ditto) */
    int maxTexture3D[3];                  /* (ditto) */
    int maxTexture3DAlt[3];               /* (ditto) */
    int maxTextureCubemap;                /* (ditto) */
    int maxTexture1DLayered[2];           /* (ditto) */
    int maxTexture2DLayered[3];           /* (ditto) */
    int maxTextureCubemapLayered[2];      /* (ditto) */
    int maxSurface1D;                     /* surface limits: unused by the workbook */
    int maxSurface2D[2];                  /* (ditto) */
    int maxSurface3D[3];                  /* (ditto) */
    int maxSurface1DLayered[2];           /* (ditto) */
    int maxSurface2DLayered[3];           /* (ditto) */
    int maxSurfaceCubemap;                /* (ditto) */
    int maxSurfaceCubemapLayered[2];      /* (ditto) */
    size_t surfaceAlignment;              /* surface alignment, bytes */
    int concurrentKernels;                /* 1 if kernels may run concurrently */
    int ECCEnabled;                       /* 1 if ECC is on */
    int pciBusID;                         /* PCI bus */
    int pciDeviceID;                      /* PCI device */
    int pciDomainID;                      /* PCI domain */
    int tccDriver;                        /* Windows only; zero */
    int asyncEngineCount;                 /* copy engines */
    int unifiedAddressing;                /* 1: one address space with the host */
    int memoryBusWidth;                   /* memory bus width, bits */
    int l2CacheSize;                      /* L2 cache, bytes */
    int persistingL2CacheMaxSize;         /* persisting L2 lines, bytes */
    int maxThreadsPerMultiProcessor;      /* resident threads per SM */
    int streamPrioritiesSupported;        /* 1 if stream priorities work */
    int globalL1CacheSupported;           /* 1 if globals are cached in L1 */
    int localL1CacheSupported;            /* 1 if locals are cached in L1 */
    size_t sharedMemPerMultiprocessor;    /* shared memory per SM, bytes */
    int regsPerMultiprocessor;            /* 32-bit registers per SM */
    int managedMemory;                    /* 1 if cudaMallocManaged works */
    int isMultiGpuBoard;                  /* 1 on multi-GPU boards */
    int multiGpuBoardGroupID;             /* board group */
    int hostNativeAtomicSupported;        /* 1 if host-device atomics are native */
    int pageableMemoryAccess;             /* 1 if pageable host memory is coherent */
    int concurrentManagedAccess;          /* 1 if managed memory is coherent */
    int computePreemptionSupported;       /* 1 if compute preemption works */
    int canUseHostPointerForRegisteredMem;/* 1 if registered host pointers work as is */
    int cooperativeLaunch;                /* 1 if cooperative launches work */
    size_t sharedMemPerBlockOptin;        /* shared memory per block with opt-in, bytes */
    int pageableMemoryAccessUsesHostPageTables; /* 1 via host page tables */
    int directManagedMemAccessFromHost;   /* 1 if the host reads managed memory in place */
    int maxBlocksPerMultiProcessor;       /* resident blocks per SM */
    int accessPolicyMaxWindowSize;        /* access policy window, bytes */
    size_t reservedSharedMemPerBlock;     /* shared memory the driver keeps per block */
    int hostRegisterSupported;            /* 1 if cudaHostRegister works */
    int sparseCudaArraySupported;         /* sparse arrays: unused */
    int hostRegisterReadOnlySupported;    /* read-only registration: unused */
    int timelineSemaphoreInteropSupported;/* interop: unused */
    int memoryPoolsSupported;             /* 1 if cudaMallocAsync works */
    int gpuDirectRDMASupported;           /* RDMA: unused */
    unsigned int gpuDirectRDMAFlushWritesOptions; /* RDMA: unused */
    int gpuDirectRDMAWritesOrdering;      /* RDMA: unused */
    unsigned int memoryPoolSupportedHandleTypes;  /* IPC: unused */
    int deferredMappingCudaArraySupported;/* arrays: unused */
    int ipcEventSupported;                /* IPC: unused */
    int clusterLaunch;                    /* 1 if thread block clusters work */
    int unifiedFunctionPointers;          /* 1 if function pointers are unified */
    int deviceNumaConfig;                 /* NUMA: unused */
    int deviceNumaId;                     /* NUMA: unused */
    int mpsEnabled;                       /* MPS: unused */
    int hostNumaId;                       /* NUMA: unused */
    unsigned int gpuPciDeviceID;          /* PCI ids: zero */
    unsigned int gpuPciSubsystemID;       /* PCI ids: zero */
    int hostNumaMultinodeIpcSupported;    /* IPC: unused */
    int reserved[56];                     /* reserved by CUDA */
};

/* What cudaFuncGetAttributes reports about a kernel: nvcc's figures where the file asked for them
 * (emu-nvcc compiled it with nvcc too), else what the emulator can tell (README.md, "A kernel's
 * figures"). */
struct cudaFuncAttributes {
    size_t sharedSizeBytes;               /* static shared memory, bytes (without nvcc's figures, 0
                                             until a block of it ran) */
    size_t constSizeBytes;                /* the file's __constant__ bytes (0 without nvcc's) */
    size_t localSizeBytes;                /* local memory per thread, bytes (0 without nvcc's) */
    int maxThreadsPerBlock;               /* largest block this kernel can launch */
    int numRegs;                          /* registers per thread (without nvcc's figures, 32, or
                                             what __launch_bounds__ allow) */
    int ptxVersion;                       /* PTX version x10 */
    int binaryVersion;                    /* binary version x10 */
    int cacheModeCA;                      /* 1 if compiled with -Xptxas -dlcm=ca */
    int maxDynamicSharedSizeBytes;        /* dynamic shared memory allowed, bytes */
    int preferredShmemCarveout;           /* carveout preference, percent or -1 */
    int clusterDimMustBeSet;              /* clusters: unused */
    int requiredClusterWidth;             /* clusters: unused */
    int requiredClusterHeight;            /* clusters: unused */
    int requiredClusterDepth;             /* clusters: unused */
    int clusterSchedulingPolicyPreference;/* clusters: unused */
    int nonPortableClusterSizeAllowed;    /* clusters: unused */
    int reserved[16];                     /* reserved by CUDA */
};

/* What cudaPointerGetAttributes reports about an address. */
struct cudaPointerAttributes {
    enum cudaMemoryType type;             /* where the memory lives */
    int device;                           /* device ordinal (0) */
    void *devicePointer;                  /* address for device code, or NULL */
    void *hostPointer;                    /* address for host code, or NULL */
    long reserved[8];                     /* reserved by CUDA */
};

/* Cache hints for a window of memory (cudaStreamSetAttribute): accepted,
 * without effect on the CPU. */
enum cudaAccessProperty {
    cudaAccessPropertyNormal = 0,
    cudaAccessPropertyStreaming = 1,
    cudaAccessPropertyPersisting = 2
};
struct cudaAccessPolicyWindow {
    void *base_ptr;                       /* the window's start */
    size_t num_bytes;                     /* and size */
    float hitRatio;                       /* share of lines that get hitProp */
    enum cudaAccessProperty hitProp;
    enum cudaAccessProperty missProp;
};
enum cudaSynchronizationPolicy {
    cudaSyncPolicyAuto = 1,
    cudaSyncPolicySpin = 2,
    cudaSyncPolicyYield = 3,
    cudaSyncPolicyBlockingSync = 4
};
/* The launch and stream attributes, with CUDA 13's values. How the emulator takes each one
 * at a launch (cudaLaunchKernelEx): README.md, Launches. */
enum cudaClusterSchedulingPolicy {
    cudaClusterSchedulingPolicyDefault = 0,
    cudaClusterSchedulingPolicySpread = 1,
    cudaClusterSchedulingPolicyLoadBalancing = 2
};
typedef enum cudaLaunchMemSyncDomain {
    cudaLaunchMemSyncDomainDefault = 0,
    cudaLaunchMemSyncDomainRemote = 1
} cudaLaunchMemSyncDomain;
typedef struct cudaLaunchMemSyncDomainMap_st {
    unsigned char default_;
    unsigned char remote;
} cudaLaunchMemSyncDomainMap;
typedef struct CUgraphDeviceUpdatableNode_st *cudaGraphDeviceNode_t;
typedef enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeCooperative = 2,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributeClusterDimension = 4,
    cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
    cudaLaunchAttributeProgrammaticStreamSerialization = 6,
    cudaLaunchAttributeProgrammaticEvent = 7,
    cudaLaunchAttributePriority = 8,
    cudaLaunchAttributeMemSyncDomainMap = 9,
    cudaLaunchAttributeMemSyncDomain = 10,
    cudaLaunchAttributePreferredClusterDimension = 11,
    cudaLaunchAttributeLaunchCompletionEvent = 12,
    cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
    cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
    cudaLaunchAttributeNvlinkUtilCentricScheduling = 16
} cudaLaunchAttributeID;
typedef union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    enum cudaSynchronizationPolicy syncPolicy;
    struct {
        unsigned int x;
        unsigned int y;
        unsigned int z;
    } clusterDim;
    enum cudaClusterSchedulingPolicy clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct {
        cudaEvent_t event;
        int flags;
        int triggerAtBlockStart;
    } programmaticEvent;
    int priority;
    cudaLaunchMemSyncDomainMap memSyncDomainMap;
    cudaLaunchMemSyncDomain memSyncDomain;
    struct {
        unsigned int x;
        unsigned int y;
        unsigned int z;
    } preferredClusterDim;
    struct {
        cudaEvent_t event;
        int flags;
    } launchCompletionEvent;
    struct {
        int deviceUpdatable;
        cudaGraphDeviceNode_t devNode;
    } deviceUpdatableKernelNode;
    unsigned int sharedMemCarveout;
    unsigned int nvlinkUtilCentricScheduling;
} cudaLaunchAttributeValue;
typedef struct cudaLaunchAttribute_st {
    cudaLaunchAttributeID id;
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;
} cudaLaunchAttribute;
/* cudaLaunchKernelEx's configuration. */
typedef struct cudaLaunchConfig_st {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned int numAttrs;
} cudaLaunchConfig_t;
#define cudaStreamAttrID cudaLaunchAttributeID
#define cudaStreamAttrValue cudaLaunchAttributeValue
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributePriority cudaLaunchAttributePriority

/* Shared memory bank width (configurable on old GPUs only; accepted). */
enum cudaSharedMemConfig {
    cudaSharedMemBankSizeDefault = 0,
    cudaSharedMemBankSizeFourByte = 1,
    cudaSharedMemBankSizeEightByte = 2
};

/* Between two devices (the emulator has one: every query fails). */
enum cudaDeviceP2PAttr {
    cudaDevP2PAttrPerformanceRank = 1,
    cudaDevP2PAttrAccessSupported = 2,
    cudaDevP2PAttrNativeAtomicSupported = 3,
    cudaDevP2PAttrCudaArrayAccessSupported = 4,
    cudaDevP2PAttrOnlyPartialNativeAtomicSupported = 5
};

/* ---- CUDA graphs, with CUDA 13's values and layouts ---- */
enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
};
enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};
enum cudaGraphNodeType {
    cudaGraphNodeTypeKernel = 0x00,
    cudaGraphNodeTypeMemcpy = 0x01,
    cudaGraphNodeTypeMemset = 0x02,
    cudaGraphNodeTypeHost = 0x03,
    cudaGraphNodeTypeGraph = 0x04,
    cudaGraphNodeTypeEmpty = 0x05,
    cudaGraphNodeTypeWaitEvent = 0x06,
    cudaGraphNodeTypeEventRecord = 0x07,
    cudaGraphNodeTypeExtSemaphoreSignal = 0x08,
    cudaGraphNodeTypeExtSemaphoreWait = 0x09,
    cudaGraphNodeTypeMemAlloc = 0x0a,
    cudaGraphNodeTypeMemFree = 0x0b,
    cudaGraphNodeTypeConditional = 0x0d,
    cudaGraphNodeTypeCount
};
enum cudaGraphInstantiateFlags {
    cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
    cudaGraphInstantiateFlagUpload = 2,
    cudaGraphInstantiateFlagDeviceLaunch = 4,
    cudaGraphInstantiateFlagUseNodePriority = 8
};
struct cudaKernelNodeParams {
    void *func;                 /* the kernel (one emu-rewrite registered) */
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams;        /* one pointer per parameter, read when the node is added */
    void **extra;               /* must be null here */
};
struct cudaMemsetParams {
    void *dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;   /* 1, 2 or 4 */
    size_t width;               /* elements per row */
    size_t height;              /* rows */
};
struct cudaHostNodeParams {
    cudaHostFn_t fn;
    void *userData;
};
typedef struct cudaGraphEdgeData_st {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;
    unsigned char reserved[5];
} cudaGraphEdgeData;

#pragma GCC visibility pop
#endif /* CUDA_EMU_DRIVER_TYPES_H */
