// The libsystemd C API as the Systemd bindings see it: the service manager's notification
// protocol (sd-daemon) and the journal's native protocol (sd-journal).
//
// Nothing needs a shim: sd_notify and sd_watchdog_enabled are plain functions, and the
// variadic sd_journal_send is reached through sd_journal_sendv, which takes an iovec array.
#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H

// The location macros would rename sd_journal_sendv to a variant taking CODE_FILE/CODE_LINE.
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#endif
