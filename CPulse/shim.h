// libpulse's asynchronous client API as the PulseAudio bindings see it: a main loop run on the
// caller's thread, a context, the sink-input list and a move.
//
// Nothing needs a shim: every call used is a plain function and the callbacks are plain C
// function pointers.
#ifndef CPULSE_SHIM_H
#define CPULSE_SHIM_H

#include <pulse/mainloop.h>
#include <pulse/context.h>
#include <pulse/introspect.h>
#include <pulse/proplist.h>
#include <pulse/error.h>

#endif
