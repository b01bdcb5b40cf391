/* The GL interposer's dlsym (i386, cdecl): as dlsym_x86_64.S, asks the shim's
 * pacer_gl_dlsym_answer (shim.c) and returns its answer, or jumps to the next dlsym with the
 * caller's own return address on the stack (RTLD_NEXT and dlerror() stay the caller's). */
    .text
    .globl pacer_gl_dlsym
    .type pacer_gl_dlsym, @function
    /* glibc's two versions of the name on i386 (shim_i386.map) */
    .symver pacer_gl_dlsym, dlsym@@GLIBC_2.34
    .symver pacer_gl_dlsym, dlsym@GLIBC_2.0
pacer_gl_dlsym:
    .cfi_startproc
    subl $4, %esp                      /* the stack 16-aligned at the call */
    .cfi_adjust_cfa_offset 4
    pushl 12(%esp)                     /* name */
    .cfi_adjust_cfa_offset 4
    pushl 12(%esp)                     /* handle */
    .cfi_adjust_cfa_offset 4
    call pacer_gl_dlsym_answer
    addl $12, %esp
    .cfi_adjust_cfa_offset -12
    testl %eax, %eax
    jnz 1f
    subl $12, %esp
    .cfi_adjust_cfa_offset 12
    call pacer_gl_next_dlsym           /* eax: the next dlsym (null: none, answer null) */
    addl $12, %esp
    .cfi_adjust_cfa_offset -12
    testl %eax, %eax
    jz 1f
    jmp *%eax
1:
    ret
    .cfi_endproc
    .size pacer_gl_dlsym, .-pacer_gl_dlsym
    .section .note.GNU-stack,"",@progbits
