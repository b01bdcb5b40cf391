/* The host the documentation's C examples are written into (tests/docs/snippets.py): every name an
 * example takes from its game, declared here and nowhere else. Everything else an example names
 * must be pacer's own, from the installed pacer/pacer.h. Compiled, not run. */
#ifndef PACER_SNIPPET_HOST_H
#define PACER_SNIPPET_HOST_H

#include <pacer/pacer.h>

/* The objects of pacer/pacer.h's first example, which the later ones continue. */
extern pacer_config config;
extern pacer_frame_pacer* pacer;

/* The game's loop. */
extern int running;
void update(double dt_seconds);
void update_and_render(void);
void draw_and_present(void);
void swap_and_report_present(void);
void render(void);
void swap(void);
/* An engine with a render thread: the game thread hands each simulated frame over. */
void hand_to_render_thread(uint64_t frame);
uint64_t next_frame_to_render(void); /* blocks until a frame is handed over */

#endif
