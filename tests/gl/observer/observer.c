/* libpacer_gl_observer.so: stamps each frame of a GLX program as its swap reaches libGL, below
 * every limiter preloaded beside it, for tools/dev/gl_compare.py.
 *
 * Where: glvnd's libGLX enters each GLX call, glXSwapBuffers among them, through
 * __glDispatchCheckMultithreaded (libGLdispatch), before it hands the call to the vendor library.
 * The observer, preloaded, hooks that function and stamps the calls made from inside libGLX's
 * own glXSwapBuffers (told by the return address, dladdr()'s symbol). Every limiter ends in that
 * function, however it found it (the pacer's interposer by RTLD_NEXT, MangoHud through libGL's
 * glXGetProcAddress), after its wait and before the driver draws: the point where the Vulkan
 * observer stamps a present. With PACER_OBSERVER_PUT_FILE, it also stamps each XShmPutImage
 * (or XPutImage), with which Mesa's software GLX hands a finished frame to the X server: the
 * frame as it leaves the process, the driver's drawing time included.
 *
 * One line per frame, written as it happens (the format of the Vulkan observer,
 * tests/vulkan/observer/):  entry_ns return_ns process_cpu_ns result
 * (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID at entry; for the swap, entry and return are the
 * same stamp and the result 1). A line per frame is one write(): the same cost under every
 * limiter, and nothing lost to a SIGTERM.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int g_fd = -2, g_put_fd = -2;

static long long ns(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void stamp(int* fd, const char* var, long long entry, long long cpu, long long ret, int result) {
    if (*fd == -2) {
        const char* path = getenv(var);
        *fd = path != NULL ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644) : -1;
    }
    if (*fd < 0) return;
    char line[96];
    const int n = snprintf(line, sizeof line, "%lld %lld %lld %d\n", entry, ret, cpu, result);
    if (n > 0) (void)!write(*fd, line, (size_t)n);
}

/* libGLX's glXSwapBuffers, [start, end), once found by dladdr from a call inside it. */
static uintptr_t g_swap_start, g_swap_end;

__attribute__((visibility("default"))) void __glDispatchCheckMultithreaded(void) {
    static void (*next)(void);
    const uintptr_t from = (uintptr_t)__builtin_return_address(0);
    if (next == NULL) next = (void (*)(void))dlsym(RTLD_NEXT, "__glDispatchCheckMultithreaded");
    int in_swap = g_swap_end != 0 && from >= g_swap_start && from < g_swap_end;
    if (g_swap_end == 0) {
        Dl_info info;
        const ElfW(Sym)* sym = NULL;
        if (dladdr1((void*)from, &info, (void**)&sym, RTLD_DL_SYMENT) != 0 && info.dli_sname != NULL && sym != NULL &&
            strcmp(info.dli_sname, "glXSwapBuffers") == 0 && strstr(info.dli_fname, "libGLX.so") != NULL) {
            g_swap_start = (uintptr_t)info.dli_saddr;
            g_swap_end = g_swap_start + sym->st_size;
            in_swap = 1;
        }
    }
    if (in_swap) {
        const long long t = ns(CLOCK_MONOTONIC);
        stamp(&g_fd, "PACER_OBSERVER_FILE", t, ns(CLOCK_PROCESS_CPUTIME_ID), t, 1);
    }
    if (next != NULL) next();
}

typedef int (*shm_put_fn)(void*, unsigned long, void*, void*, int, int, int, int, unsigned int, unsigned int, int);
typedef int (*put_fn)(void*, unsigned long, void*, void*, int, int, int, int, unsigned int, unsigned int);

__attribute__((visibility("default"))) int XShmPutImage(void* dpy, unsigned long d, void* gc, void* image, int sx,
                                                        int sy, int dx, int dy, unsigned int w, unsigned int h,
                                                        int send_event) {
    static shm_put_fn next;
    if (next == NULL) next = (shm_put_fn)dlsym(RTLD_NEXT, "XShmPutImage");
    const long long entry = ns(CLOCK_MONOTONIC), cpu = ns(CLOCK_PROCESS_CPUTIME_ID);
    const int r = next != NULL ? next(dpy, d, gc, image, sx, sy, dx, dy, w, h, send_event) : 0;
    stamp(&g_put_fd, "PACER_OBSERVER_PUT_FILE", entry, cpu, ns(CLOCK_MONOTONIC), r);
    return r;
}

__attribute__((visibility("default"))) int XPutImage(void* dpy, unsigned long d, void* gc, void* image, int sx, int sy,
                                                     int dx, int dy, unsigned int w, unsigned int h) {
    static put_fn next;
    if (next == NULL) next = (put_fn)dlsym(RTLD_NEXT, "XPutImage");
    const long long entry = ns(CLOCK_MONOTONIC), cpu = ns(CLOCK_PROCESS_CPUTIME_ID);
    const int r = next != NULL ? next(dpy, d, gc, image, sx, sy, dx, dy, w, h) : 0;
    stamp(&g_put_fd, "PACER_OBSERVER_PUT_FILE", entry, cpu, ns(CLOCK_MONOTONIC), r);
    return r;
}
