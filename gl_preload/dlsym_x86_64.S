/* The GL interposer's dlsym (x86-64, System V): asks the shim's pacer_gl_dlsym_answer (shim.c)
 * and returns its answer, or jumps to the next dlsym with the caller's own return address on the
 * stack, so that glibc resolves the caller's RTLD_NEXT relative to the caller, not to the shim,
 * and dlerror() reads what that call left. */
    .text
    .globl pacer_gl_dlsym
    .type pacer_gl_dlsym, @function
    /* Under glibc's two versions of the name as well as bare: a second hook that asks for the
     * next dlsym by version (dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34")) finds this one when it
     * comes first in LD_PRELOAD, and chains to it (shim_x86_64.map). */
    .symver pacer_gl_dlsym, dlsym@@GLIBC_2.34
    .symver pacer_gl_dlsym, dlsym@GLIBC_2.2.5
pacer_gl_dlsym:
    .cfi_startproc
    pushq %rdi
    .cfi_adjust_cfa_offset 8
    pushq %rsi
    .cfi_adjust_cfa_offset 8
    subq $8, %rsp                      /* the stack 16-aligned at the call */
    .cfi_adjust_cfa_offset 8
    call pacer_gl_dlsym_answer
    testq %rax, %rax
    jnz 1f
    call pacer_gl_next_dlsym           /* rax: the next dlsym (null: none, answer null) */
    addq $8, %rsp
    .cfi_adjust_cfa_offset -8
    popq %rsi
    .cfi_adjust_cfa_offset -8
    popq %rdi
    .cfi_adjust_cfa_offset -8
    testq %rax, %rax
    jz 2f
    jmp *%rax
1:
    .cfi_adjust_cfa_offset 24
    addq $24, %rsp
    .cfi_adjust_cfa_offset -24
2:
    ret
    .cfi_endproc
    .size pacer_gl_dlsym, .-pacer_gl_dlsym
    .section .note.GNU-stack,"",@progbits
