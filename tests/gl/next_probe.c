/* dlsym(RTLD_NEXT) and dlerror() as a program sees them, with and without the GL interposer
 * (tests/gl/gl_test.sh runs it both ways and compares the output, which must be the same).
 * Built with three libraries in the order probe_a, probe_b, probe_c (next_probe_lib.c): b looks
 * up pacer_probe_which with RTLD_NEXT, which must find c's ('c'), not a's, which comes before b
 * (a dlsym that resolved RTLD_NEXT relative to a preloaded shim would find a's). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

char pacer_probe_next_from_b(void);

static void say(const char* what, const void* p) {
    const char* e = dlerror();
    printf("%s: %s, dlerror %s\n", what, p != NULL ? "found" : "null", e != NULL ? e : "(none)");
    const char* again = dlerror();
    printf("%s: dlerror again %s\n", what, again != NULL ? again : "(none)");
}

int main(void) {
    printf("RTLD_NEXT from b finds %c\n", pacer_probe_next_from_b());
    say("RTLD_DEFAULT missing", dlsym(RTLD_DEFAULT, "pacer_probe_no_such_symbol"));
    say("RTLD_DEFAULT puts", dlsym(RTLD_DEFAULT, "puts"));
    say("RTLD_NEXT missing", dlsym(RTLD_NEXT, "pacer_probe_no_such_symbol"));
    void* libc = dlopen("libc.so.6", RTLD_NOW);
    /* a name the shim hooks, looked up where it is not defined: null and the same error */
    say("libc glXSwapBuffers", dlsym(libc, "glXSwapBuffers"));
    say("libc eglSwapBuffers", dlsym(libc, "eglSwapBuffers"));
    say("libc printf", dlsym(libc, "printf"));
    return 0;
}
