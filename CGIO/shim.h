// GIO's D-Bus API (GDBus) as the DBus bindings see it.
//
// Nothing needs a shim: the GDBus and GVariant calls used are plain functions, error domains
// are reached through their quark functions (g_dbus_error_quark for G_DBUS_ERROR) and variant
// types through g_variant_type_new instead of the G_VARIANT_TYPE cast macro.
#ifndef CGIO_SHIM_H
#define CGIO_SHIM_H

#include <gio/gio.h>

#endif
