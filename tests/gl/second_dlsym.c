/* A second preloaded dlsym hook, as Steam's overlay has one (tests/gl/gl_test.sh preloads it
 * before and after the interposer): it counts the calls and hands each to the next dlsym, found
 * by version as such hooks do. PACER_PROBE_SECOND_DLSYM_REPORT=1 prints the count at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void* (*next_dlsym)(void*, const char*);
static unsigned long calls;

void* dlsym(void* handle, const char* name) {
    if (next_dlsym == NULL) {
        next_dlsym = (void* (*)(void*, const char*))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (next_dlsym == NULL) next_dlsym = (void* (*)(void*, const char*))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    }
    ++calls;
    return next_dlsym(handle, name);
}

__attribute__((destructor)) static void report(void) {
    if (getenv("PACER_PROBE_SECOND_DLSYM_REPORT") != NULL) fprintf(stderr, "second dlsym: %lu calls\n", calls);
}
