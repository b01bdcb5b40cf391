/* The three libraries of next_probe.c: built as probe_a (PROBE 'a'), probe_b ('b') and probe_c
 * ('c'); PROBE is the letter's code (97, 98, 99). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

char pacer_probe_which(void) { return (char)PROBE; }

#if PROBE == 98
char pacer_probe_next_from_b(void) {
    char (*next)(void) = (char (*)(void))dlsym(RTLD_NEXT, "pacer_probe_which");
    return next != NULL ? next() : '?';
}
#endif
