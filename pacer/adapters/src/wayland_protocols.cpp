// The protocol code wayland-scanner generates from presentation-time.xml, compiled as C++ for the
// pacer::wayland target (the project needs no C compiler). Included after the client header inside
// extern "C", so the interfaces it defines get the C linkage the header declares.
extern "C" {
#include "presentation-time-client-protocol.h"
#include "presentation-time-protocol.c"
}
