/* libpacer_gl_observer.so: stamps each frame as Mesa's software GL driver hands it to the X server,
 * for tools/dev/gl_compare.py, below every limiter preloaded beside it. On llvmpipe under Xvfb,
 * libGLX_mesa presents a swap with one XShmPutImage (MIT-SHM), or XPutImage without it: both are
 * hooked here (preloaded, ahead of libXext and libX11) and forwarded to the next definition. Neither
 * the pacer's GL interposer nor MangoHud hooks them, so the observer sees the frames as they leave
 * the process, whatever limiter paced them and however it found the swap.
 *
 * One line per call, written as it happens to PACER_OBSERVER_FILE (the format of the Vulkan
 * observer, tests/vulkan/observer/):  entry_ns return_ns process_cpu_ns result
 * (CLOCK_MONOTONIC at entry and return, CLOCK_PROCESS_CPUTIME_ID at entry, the call's result). A
 * line per frame is one write(): the same cost under every limiter, and nothing lost to a SIGTERM.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int g_fd = -2;

static long long ns(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void stamp(long long entry, long long cpu, long long ret, int result) {
    if (g_fd == -2) {
        const char* path = getenv("PACER_OBSERVER_FILE");
        g_fd = path != NULL ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644) : -1;
    }
    if (g_fd < 0) return;
    char line[96];
    const int n = snprintf(line, sizeof line, "%lld %lld %lld %d\n", entry, ret, cpu, result);
    if (n > 0) (void)!write(g_fd, line, (size_t)n);
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
    stamp(entry, cpu, ns(CLOCK_MONOTONIC), r);
    return r;
}

__attribute__((visibility("default"))) int XPutImage(void* dpy, unsigned long d, void* gc, void* image, int sx, int sy,
                                                     int dx, int dy, unsigned int w, unsigned int h) {
    static put_fn next;
    if (next == NULL) next = (put_fn)dlsym(RTLD_NEXT, "XPutImage");
    const long long entry = ns(CLOCK_MONOTONIC), cpu = ns(CLOCK_PROCESS_CPUTIME_ID);
    const int r = next != NULL ? next(dpy, d, gc, image, sx, sy, dx, dy, w, h) : 0;
    stamp(entry, cpu, ns(CLOCK_MONOTONIC), r);
    return r;
}
