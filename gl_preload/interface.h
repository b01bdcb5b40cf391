/* The interface between the GL interposer's two libraries (docs/gl.md):
 *   libpacer_gl.so          the shim a game preloads: C, libc only; it hooks the swaps, the swap
 *                           intervals, the GetProcAddress calls and dlsym, and forwards each call;
 *   pacer/libpacer_gl_pacing.so   the pacing (C++, pacer linked in, every symbol local but
 *                           pacer_gl_pacing_v1), dlopen'ed by the shim at the first swap, from the
 *                           folder beside the shim.
 * Only the shim's exports meet the game's symbols; the pacing library needs nothing of the game's.
 */
#ifndef PACER_GL_PRELOAD_INTERFACE_H
#define PACER_GL_PRELOAD_INTERFACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pacer_gl_api { PACER_GL_GLX = 1, PACER_GL_EGL = 2 };

/* One swap, as the shim saw it. */
struct pacer_gl_swap {
    int api;                 /* enum pacer_gl_api */
    uintptr_t drawable;      /* the GLX drawable or the EGL surface: a window's identity */
    int swap_interval;       /* the last one the game set through a hooked call; -1 unknown */
};

struct pacer_gl_pacing {
    int version; /* 1 */
    /* Before the real swap: waits where the placement says (before) and reports 1 when the swap
     * is paced, so that the shim calls after() with that; 0 for a swap that is not paced (a
     * second window, pacing off). */
    int (*before)(const struct pacer_gl_swap* swap);
    /* After the real swap returned; ok: it succeeded. Waits where the placement says (after). */
    void (*after)(const struct pacer_gl_swap* swap, int paced, int ok);
};

/* The pacing library's one export. Reads the settings, says the start-up line (or the one error
 * line) at the first call. Never returns null. */
typedef const struct pacer_gl_pacing* (*pacer_gl_pacing_entry)(void);
#define PACER_GL_PACING_ENTRY "pacer_gl_pacing_v1"

#ifdef __cplusplus
}
#endif
#endif
