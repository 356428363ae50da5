/*
 * atomics.cpp -- atomic read-modify-write operations and memory fences.
 *
 * Blocks may run on several host threads at once (exec.cpp), so each is a
 * real atomic operation of the CPU: a compare-and-swap loop. What makes them
 * more than that is the bookkeeping: the race checker must know an access was
 * atomic (atomics do not race with each other), that it may order other
 * accesses (a ticket taken after a __threadfence() publishes a block's
 * results), and that a thread polling a flag with atomics that change
 * nothing is spinning.
 */
#include <cstdint>
#include <cstring>

#include "emu_internal.h"

namespace cuda_emu {

namespace {

template <size_t N> struct Bits;
template <> struct Bits<2> { using type = uint16_t; };
template <> struct Bits<4> { using type = uint32_t; };
template <> struct Bits<8> { using type = uint64_t; };

template <class T, class F>
__attribute__((always_inline)) inline T rmw(T *address, F update, const void *pc,
                                            bool reads_old = true)
{
    using U = typename Bits<sizeof(T)>::type;
    U *p = reinterpret_cast<U *>(address);
    U before = __atomic_load_n(p, __ATOMIC_RELAXED), after;
    T old, now;
    do {
        std::memcpy(&old, &before, sizeof(T));
        now = update(old);
        std::memcpy(&after, &now, sizeof(T));
    } while (!__atomic_compare_exchange_n(p, &before, after, true, __ATOMIC_SEQ_CST,
                                          __ATOMIC_RELAXED));
    /* Compared as bits: a float that stays NaN is no change. After the
     * write: tracking may let another fiber run (a spinning thread). */
    track_atomic(address, sizeof(T), before != after, pc, reads_old);
    return old;
}

} // namespace

} // namespace cuda_emu

using cuda_emu::rmw;

#define CUDA_EMU_ATOMIC2(name, T, expr)                                                 \
    T name(T *address, T val)                                                           \
    {                                                                                   \
        return rmw(address, [val](T old) -> T { (void)old; return expr; }, CUDA_EMU_PC);           \
    }

CUDA_EMU_ATOMIC2(atomicAdd, int, (int)((unsigned)old + (unsigned)val))
CUDA_EMU_ATOMIC2(atomicAdd, unsigned int, old + val)
CUDA_EMU_ATOMIC2(atomicAdd, unsigned long long, old + val)
CUDA_EMU_ATOMIC2(atomicAdd, float, old + val)
CUDA_EMU_ATOMIC2(atomicAdd, double, old + val)
CUDA_EMU_ATOMIC2(atomicSub, int, (int)((unsigned)old - (unsigned)val))
CUDA_EMU_ATOMIC2(atomicSub, unsigned int, old - val)
#define CUDA_EMU_ATOMIC_EXCH(T)                                                         \
    T atomicExch(T *address, T val)                                                     \
    {                                                                                   \
        return rmw(address, [val](T) -> T { return val; }, CUDA_EMU_PC, false);          \
    }
CUDA_EMU_ATOMIC_EXCH(int)
CUDA_EMU_ATOMIC_EXCH(unsigned int)
CUDA_EMU_ATOMIC_EXCH(unsigned long long)
CUDA_EMU_ATOMIC_EXCH(float)
CUDA_EMU_ATOMIC2(atomicMin, int, old < val ? old : val)
CUDA_EMU_ATOMIC2(atomicMin, unsigned int, old < val ? old : val)
CUDA_EMU_ATOMIC2(atomicMin, long long, old < val ? old : val)
CUDA_EMU_ATOMIC2(atomicMin, unsigned long long, old < val ? old : val)
CUDA_EMU_ATOMIC2(atomicMax, int, old > val ? old : val)
CUDA_EMU_ATOMIC2(atomicMax, unsigned int, old > val ? old : val)
CUDA_EMU_ATOMIC2(atomicMax, long long, old > val ? old : val)
CUDA_EMU_ATOMIC2(atomicMax, unsigned long long, old > val ? old : val)
CUDA_EMU_ATOMIC2(atomicInc, unsigned int, old >= val ? 0u : old + 1)
CUDA_EMU_ATOMIC2(atomicDec, unsigned int, (old == 0 || old > val) ? val : old - 1)
CUDA_EMU_ATOMIC2(atomicAnd, int, old & val)
CUDA_EMU_ATOMIC2(atomicAnd, unsigned int, old & val)
CUDA_EMU_ATOMIC2(atomicAnd, unsigned long long, old & val)
CUDA_EMU_ATOMIC2(atomicOr, int, old | val)
CUDA_EMU_ATOMIC2(atomicOr, unsigned int, old | val)
CUDA_EMU_ATOMIC2(atomicOr, unsigned long long, old | val)
CUDA_EMU_ATOMIC2(atomicXor, int, old ^ val)
CUDA_EMU_ATOMIC2(atomicXor, unsigned int, old ^ val)
CUDA_EMU_ATOMIC2(atomicXor, unsigned long long, old ^ val)

#define CUDA_EMU_ATOMIC_CAS(T)                                                          \
    T atomicCAS(T *address, T compare, T val)                                           \
    {                                                                                   \
        return rmw(address, [compare, val](T old) -> T { return old == compare ? val : old; }, \
                   CUDA_EMU_PC);                                                        \
    }
CUDA_EMU_ATOMIC_CAS(int)
CUDA_EMU_ATOMIC_CAS(unsigned int)
CUDA_EMU_ATOMIC_CAS(unsigned long long)
CUDA_EMU_ATOMIC_CAS(unsigned short)

/* One device, one order: all three fence scopes are the same here. */
void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); cuda_emu::track_sync(); }
void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); cuda_emu::track_sync(); }
void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); cuda_emu::track_sync(); }
