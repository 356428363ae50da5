/*
 * fiber_x86_64.S -- the context switch for x86-64 (System V ABI).
 *
 * void cuda_emu_switch(void **save_sp, void *new_sp)
 *   pushes the callee-saved registers on the current stack, stores the stack
 *   pointer in *save_sp, loads new_sp and pops the same frame from there.
 *   Caller-saved registers need no saving: the compiler assumes a call
 *   clobbers them. The MXCSR and x87 control words (rounding, exception
 *   masks) are the same on every fiber: kernels cannot change them (CUDA has
 *   no fesetround; the directed-rounding intrinsics restore the mode before
 *   they return), so they are not switched (ldmxcsr and fldcw are slow).
 *
 * A new context's stack is prepared by context_make() in fiber.cpp to look
 * like a suspended switch whose return address is cuda_emu_trampoline, with
 * the entry function in r13 and its argument in r12.
 */
#if defined(__x86_64__) && !defined(CUDA_EMU_FIBER_UCONTEXT)
    .text
    .globl cuda_emu_switch
    .hidden cuda_emu_switch
    .type cuda_emu_switch, @function
cuda_emu_switch:
    .cfi_startproc
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .cfi_endproc
    .size cuda_emu_switch, .-cuda_emu_switch

    .globl cuda_emu_trampoline
    .hidden cuda_emu_trampoline
    .type cuda_emu_trampoline, @function
cuda_emu_trampoline:
    .cfi_startproc
    .cfi_undefined rip
    movq %r12, %rdi
    callq *%r13
    ud2
    .cfi_endproc
    .size cuda_emu_trampoline, .-cuda_emu_trampoline
#endif
    .section .note.GNU-stack, "", @progbits
