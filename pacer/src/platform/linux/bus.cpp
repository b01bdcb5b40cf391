// Linux: RealtimeKit and the xdg Realtime portal over libdbus loaded at run time (bus.hpp says
// what and why).
//
// How a call goes:
//   1. libdbus-1.so.3 is loaded once (dlopen, RTLD_NOW | RTLD_LOCAL: its symbols stay out of the
//      host's namespace) and never unloaded: the host may share the same copy (SDL dlopens it
//      too) and libdbus keeps process-wide state (its locks, its connection data slots).
//   2. The portal: a private connection to the session bus, one Properties.Get of the portal's
//      RTTimeUSecMax as SDL probes it (an int64: the portal of xdg-desktop-portal 1.15 or later),
//      with auto-start off (a probe must not start a portal that is not running; where there is
//      no session bus there is no portal). When it answers, the portal decides: the request goes
//      to it, and its answer is the answer.
//   3. Else RealtimeKit: a private connection to the system bus, the request to
//      org.freedesktop.RealtimeKit1, auto-start allowed (a desktop's system bus activates
//      rtkit-daemon on the first request).
// Every connection is private, authenticated and registered (Hello) here, each step within the
// caller's timeout (dbus_bus_register would wait libdbus's default 25 s for Hello, and libdbus's
// own authentication inside a blocking call has no timeout at all); exit-on-disconnect is off (a
// shared connection from dbus_bus_get ends the process when the bus goes away); it is closed and
// unreferenced before the call returns. Every DBusError is freed and every message unreferenced
// on every path (small owners below), so ASan's and valgrind's leak checks see nothing of ours.
//
// The bus addresses are found as libdbus finds them, without its autolaunch (dbus-launch would
// start a session bus of its own, an X11 process, from inside a game): the system bus at
// $DBUS_SYSTEM_BUS_ADDRESS or libdbus's default, the session bus at $DBUS_SESSION_BUS_ADDRESS
// or $XDG_RUNTIME_DIR/bus (a socket of this user's), else none. secure_getenv, as libdbus
// ignores the environment in a setuid process.
#include "platform/linux/bus.hpp"

namespace pacer::platform::bus {

const char* to_string(Via v) noexcept {
    switch (v) {
        case Via::portal: return "the Realtime portal";
        case Via::realtimekit: return "RealtimeKit";
        case Via::none: break;
    }
    return "";
}

}  // namespace pacer::platform::bus

#ifndef PACER_HAVE_DBUS_HEADERS

#include <cstdio>

namespace pacer::platform::bus {
namespace {
constexpr char kNoHeaders[] =
    "built without D-Bus headers (libdbus-1-dev): neither RealtimeKit nor the Realtime portal can be asked";
}

Limits read_limits(int) noexcept {
    Limits l;
    std::snprintf(l.error, sizeof l.error, "%s", kNoHeaders);
    return l;
}
Answer make_realtime(std::int64_t, std::int64_t, int, int, const Waiting&) noexcept {
    Answer a;
    a.unreachable = true;
    std::snprintf(a.error, sizeof a.error, "%s", kNoHeaders);
    return a;
}
Answer make_high_priority(std::int64_t, std::int64_t, int, int) noexcept { return make_realtime(0, 0, 0, 0); }

}  // namespace pacer::platform::bus

#else  // PACER_HAVE_DBUS_HEADERS

#include <dbus/dbus.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pacer::platform::bus {
namespace {

constexpr char kLibrary[] = "libdbus-1.so.3";  // the soname: libdbus-1-3's, no -dev needed
// libdbus's built-in system bus address (configure's DBUS_SYSTEM_BUS_DEFAULT_ADDRESS, not in its
// headers); /var/run is /run on current systems.
constexpr char kSystemBusDefault[] = "unix:path=/var/run/dbus/system_bus_socket";

constexpr char kRtkitName[] = "org.freedesktop.RealtimeKit1";
constexpr char kRtkitPath[] = "/org/freedesktop/RealtimeKit1";
constexpr char kRtkitInterface[] = "org.freedesktop.RealtimeKit1";
constexpr char kPortalName[] = "org.freedesktop.portal.Desktop";
constexpr char kPortalPath[] = "/org/freedesktop/portal/desktop";
constexpr char kPortalInterface[] = "org.freedesktop.portal.Realtime";

// The libdbus functions used, typed from its headers (decltype names no symbol: nothing links).
struct Lib {
    bool ok = false;
    char why[200] = "";  // not ok: why, one line
    decltype(&::dbus_threads_init_default) threads_init_default = nullptr;
    decltype(&::dbus_error_init) error_init = nullptr;
    decltype(&::dbus_error_free) error_free = nullptr;
    decltype(&::dbus_connection_open_private) connection_open_private = nullptr;
    decltype(&::dbus_connection_set_exit_on_disconnect) connection_set_exit_on_disconnect = nullptr;
    decltype(&::dbus_connection_get_is_authenticated) connection_get_is_authenticated = nullptr;
    decltype(&::dbus_connection_get_is_connected) connection_get_is_connected = nullptr;
    decltype(&::dbus_connection_read_write) connection_read_write = nullptr;
    decltype(&::dbus_connection_close) connection_close = nullptr;
    decltype(&::dbus_connection_unref) connection_unref = nullptr;
    decltype(&::dbus_connection_send_with_reply) send_with_reply = nullptr;
    decltype(&::dbus_pending_call_block) pending_call_block = nullptr;
    decltype(&::dbus_pending_call_get_completed) pending_call_get_completed = nullptr;
    decltype(&::dbus_pending_call_cancel) pending_call_cancel = nullptr;
    decltype(&::dbus_connection_read_write_dispatch) connection_read_write_dispatch = nullptr;
    decltype(&::dbus_pending_call_steal_reply) pending_call_steal_reply = nullptr;
    decltype(&::dbus_pending_call_unref) pending_call_unref = nullptr;
    decltype(&::dbus_set_error_const) set_error_const = nullptr;
    decltype(&::dbus_set_error_from_message) set_error_from_message = nullptr;
    decltype(&::dbus_bus_set_unique_name) bus_set_unique_name = nullptr;
    decltype(&::dbus_message_new_method_call) message_new_method_call = nullptr;
    decltype(&::dbus_message_set_auto_start) message_set_auto_start = nullptr;
    decltype(&::dbus_message_unref) message_unref = nullptr;
    decltype(&::dbus_message_get_type) message_get_type = nullptr;
    decltype(&::dbus_message_get_sender) message_get_sender = nullptr;
    decltype(&::dbus_message_iter_init) iter_init = nullptr;
    decltype(&::dbus_message_iter_init_append) iter_init_append = nullptr;
    decltype(&::dbus_message_iter_append_basic) iter_append_basic = nullptr;
    decltype(&::dbus_message_iter_get_arg_type) iter_get_arg_type = nullptr;
    decltype(&::dbus_message_iter_get_basic) iter_get_basic = nullptr;
    decltype(&::dbus_message_iter_recurse) iter_recurse = nullptr;
    decltype(&::dbus_address_escape_value) address_escape_value = nullptr;
    decltype(&::dbus_free) free = nullptr;
};

template <class F>
void resolve(void* handle, const char* name, F& fn, const char*& missing) noexcept {
    void* p = dlsym(handle, name);
    if (!p && !missing) missing = name;
    fn = reinterpret_cast<F>(p);  // POSIX: dlsym's result is the function's address
}

Lib load() noexcept {
    Lib l;
    void* h = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        std::snprintf(l.why, sizeof l.why, "%s could not be loaded (%s)", kLibrary, e ? e : "dlopen failed");
        return l;
    }
    const char* missing = nullptr;
    resolve(h, "dbus_threads_init_default", l.threads_init_default, missing);
    resolve(h, "dbus_error_init", l.error_init, missing);
    resolve(h, "dbus_error_free", l.error_free, missing);
    resolve(h, "dbus_connection_open_private", l.connection_open_private, missing);
    resolve(h, "dbus_connection_set_exit_on_disconnect", l.connection_set_exit_on_disconnect, missing);
    resolve(h, "dbus_connection_get_is_authenticated", l.connection_get_is_authenticated, missing);
    resolve(h, "dbus_connection_get_is_connected", l.connection_get_is_connected, missing);
    resolve(h, "dbus_connection_read_write", l.connection_read_write, missing);
    resolve(h, "dbus_connection_close", l.connection_close, missing);
    resolve(h, "dbus_connection_unref", l.connection_unref, missing);
    resolve(h, "dbus_connection_send_with_reply", l.send_with_reply, missing);
    resolve(h, "dbus_pending_call_block", l.pending_call_block, missing);
    resolve(h, "dbus_pending_call_get_completed", l.pending_call_get_completed, missing);
    resolve(h, "dbus_pending_call_cancel", l.pending_call_cancel, missing);
    resolve(h, "dbus_connection_read_write_dispatch", l.connection_read_write_dispatch, missing);
    resolve(h, "dbus_pending_call_steal_reply", l.pending_call_steal_reply, missing);
    resolve(h, "dbus_pending_call_unref", l.pending_call_unref, missing);
    resolve(h, "dbus_set_error_const", l.set_error_const, missing);
    resolve(h, "dbus_set_error_from_message", l.set_error_from_message, missing);
    resolve(h, "dbus_bus_set_unique_name", l.bus_set_unique_name, missing);
    resolve(h, "dbus_message_new_method_call", l.message_new_method_call, missing);
    resolve(h, "dbus_message_set_auto_start", l.message_set_auto_start, missing);
    resolve(h, "dbus_message_unref", l.message_unref, missing);
    resolve(h, "dbus_message_get_type", l.message_get_type, missing);
    resolve(h, "dbus_message_get_sender", l.message_get_sender, missing);
    resolve(h, "dbus_message_iter_init", l.iter_init, missing);
    resolve(h, "dbus_message_iter_init_append", l.iter_init_append, missing);
    resolve(h, "dbus_message_iter_append_basic", l.iter_append_basic, missing);
    resolve(h, "dbus_message_iter_get_arg_type", l.iter_get_arg_type, missing);
    resolve(h, "dbus_message_iter_get_basic", l.iter_get_basic, missing);
    resolve(h, "dbus_message_iter_recurse", l.iter_recurse, missing);
    resolve(h, "dbus_address_escape_value", l.address_escape_value, missing);
    resolve(h, "dbus_free", l.free, missing);
    if (missing) {
        std::snprintf(l.why, sizeof l.why, "%s has no %s", kLibrary, missing);
        dlclose(h);
        return l;
    }
    // Locks for libdbus's global state: the host may use libdbus from other threads (libdbus
    // 1.7+ does it by itself; older ones need the call, and it is idempotent).
    if (!l.threads_init_default()) {
        std::snprintf(l.why, sizeof l.why, "%s: dbus_threads_init_default() failed (out of memory)", kLibrary);
        return l;  // not unloaded: the host may already use it
    }
    l.ok = true;
    return l;
}

// Loaded by the first caller; the others wait for it (a function-local static is initialized
// once, thread-safe, as std::call_once, and cannot throw here).
const Lib& lib() noexcept {
    static const Lib l = load();
    return l;
}

// ---- owners: every error freed, every message and connection let go ---------------------------

struct Error {
    const Lib& l;
    DBusError e;
    explicit Error(const Lib& lib_) noexcept : l(lib_) { l.error_init(&e); }
    ~Error() { l.error_free(&e); }  // frees only what was set
    Error(const Error&) = delete;
    Error& operator=(const Error&) = delete;
    bool set() const noexcept { return e.name != nullptr; }
    bool is(const char* name) const noexcept { return e.name && std::strcmp(e.name, name) == 0; }
    const char* name() const noexcept { return e.name ? e.name : "(no error name)"; }
    // GDBus (the portal) passes a remote error on as "GDBus.Error:<name>: <message>": the name
    // once is enough.
    const char* message() const noexcept {
        if (!e.message) return "";
        constexpr char kGdbus[] = "GDBus.Error:";
        const std::size_t n = sizeof kGdbus - 1, name_n = e.name ? std::strlen(e.name) : 0;
        if (name_n && std::strncmp(e.message, kGdbus, n) == 0 && std::strncmp(e.message + n, e.name, name_n) == 0 &&
            std::strncmp(e.message + n + name_n, ": ", 2) == 0)
            return e.message + n + name_n + 2;
        return e.message;
    }
};

struct Message {
    const Lib& l;
    DBusMessage* m;
    Message(const Lib& lib_, DBusMessage* msg) noexcept : l(lib_), m(msg) {}
    ~Message() {
        if (m) l.message_unref(m);
    }
    Message(const Message&) = delete;
    Message& operator=(const Message&) = delete;
};

struct Connection {
    const Lib& l;
    DBusConnection* c = nullptr;
    explicit Connection(const Lib& lib_) noexcept : l(lib_) {}
    ~Connection() {
        if (c) {
            l.connection_close(c);  // a private connection is closed before its last unref
            l.connection_unref(c);
        }
    }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
};

// ---- text ---------------------------------------------------------------------------------------

// Appends to a fixed buffer, truncating; control characters (a D-Bus message's newlines) become
// spaces so that the result stays one line.
[[gnu::format(printf, 3, 4)]] void append(char* buf, std::size_t size, const char* fmt, ...) noexcept {
    const std::size_t used = std::strlen(buf);
    if (used + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
    for (char* p = buf + used; *p; ++p)
        if (static_cast<unsigned char>(*p) < 0x20) *p = ' ';
}

// ---- connections --------------------------------------------------------------------------------

// secure_getenv, "" as unset.
const char* env(const char* name) noexcept {
    const char* v = secure_getenv(name);
    return v && *v ? v : nullptr;
}

// The session bus's address as libdbus finds it, without autolaunch (above). false: none; the
// address may be one made here (owned is then set: std::free it).
bool session_address(const Lib& l, const char*& address, char*& owned) noexcept {
    owned = nullptr;
    if ((address = env("DBUS_SESSION_BUS_ADDRESS"))) return true;
    const char* runtime = env("XDG_RUNTIME_DIR");
    if (!runtime) return false;
    char path[4096];
    if (std::snprintf(path, sizeof path, "%s/bus", runtime) >= static_cast<int>(sizeof path)) return false;
    struct stat st {};
    if (lstat(path, &st) != 0 || st.st_uid != getuid() || !S_ISSOCK(st.st_mode)) return false;
    char* escaped = l.address_escape_value(path);
    if (!escaped) return false;
    const std::size_t n = std::strlen(escaped) + sizeof "unix:path=";
    owned = static_cast<char*>(std::malloc(n));
    if (owned) std::snprintf(owned, n, "unix:path=%s", escaped);
    l.free(escaped);
    address = owned;
    return owned != nullptr;
}

// One round trip: the reply when it is a method return; else null, err set, and from_bus when the
// bus itself answered (the name has no owner, or could not be started) rather than the service,
// which may pass on an error of the same name from the service behind it (the portal passes on
// RealtimeKit's). What dbus_connection_send_with_reply_and_block does, keeping the reply's sender.
// With a waiting look: one look as the call goes, then the connection is read in slices of its
// every_ms and the look called after each, until the reply or timeout_ms (then the call is
// cancelled: a NoReply error).
DBusMessage* round_trip(const Connection& conn, DBusMessage* call, int timeout_ms, Error& err, bool& from_bus,
                        const Waiting& waiting = Waiting{}) noexcept {
    const Lib& l = conn.l;
    from_bus = false;
    DBusPendingCall* pending = nullptr;
    if (waiting.look != nullptr) waiting.look(waiting.ctx);  // one look as the call goes
    if (!l.send_with_reply(conn.c, call, &pending, timeout_ms)) {
        l.set_error_const(&err.e, DBUS_ERROR_NO_MEMORY, "out of memory");
        return nullptr;
    }
    if (!pending) {  // libdbus: the connection is closed
        l.set_error_const(&err.e, DBUS_ERROR_DISCONNECTED, "the connection was closed");
        return nullptr;
    }
    if (waiting.look == nullptr) {
        // At most timeout_ms, then libdbus puts a NoReply error (its flush of the outgoing queue
        // first waits without one, but an authenticated connection's socket takes a small message
        // at once).
        l.pending_call_block(pending);
    } else {
        // Without a main loop libdbus never fires the call's own timeout: the deadline is ours.
        // A dispatch hands the reply to the pending call (and answers any other message).
        using steady = std::chrono::steady_clock;
        const steady::time_point deadline = steady::now() + std::chrono::milliseconds(timeout_ms);
        const int slice = waiting.every_ms < 1 ? 1 : waiting.every_ms;
        while (!l.pending_call_get_completed(pending)) {
            const long long left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now()).count();
            const int wait_ms = static_cast<int>(std::min<long long>(left, slice));
            if (left <= 0 || !l.connection_read_write_dispatch(conn.c, wait_ms)) {
                waiting.look(waiting.ctx);
                if (l.pending_call_get_completed(pending)) break;
                l.pending_call_cancel(pending);
                l.pending_call_unref(pending);
                if (left <= 0)
                    l.set_error_const(&err.e, DBUS_ERROR_NO_REPLY, "no reply within the timeout");
                else
                    l.set_error_const(&err.e, DBUS_ERROR_DISCONNECTED, "the connection was closed");
                return nullptr;
            }
            waiting.look(waiting.ctx);
        }
    }
    DBusMessage* reply = l.pending_call_steal_reply(pending);
    l.pending_call_unref(pending);
    if (!reply) {
        l.set_error_const(&err.e, DBUS_ERROR_NO_REPLY, "no reply");
        return nullptr;
    }
    if (l.message_get_type(reply) == DBUS_MESSAGE_TYPE_METHOD_RETURN) return reply;
    l.set_error_from_message(&err.e, reply);
    const char* sender = l.message_get_sender(reply);
    from_bus = sender && std::strcmp(sender, DBUS_SERVICE_DBUS) == 0;
    l.message_unref(reply);
    return nullptr;
}

// A private connection to the bus at address, authenticated within timeout_ms, then registered
// (Hello) within timeout_ms. On failure, why says what failed and false. (connect(2) itself, in
// dbus_connection_open_private, waits only where a bus's listen queue is full: thousands of
// connections to a bus that has stopped accepting.)
bool connect(Connection& conn, const char* address, int timeout_ms, char* why, std::size_t size) noexcept {
    const Lib& l = conn.l;
    Error err(l);
    conn.c = l.connection_open_private(address, &err.e);
    if (!conn.c) {
        append(why, size, "cannot connect to %s (%s: %s)", address, err.name(), err.message());
        return false;
    }
    l.connection_set_exit_on_disconnect(conn.c, 0);  // a bus that goes away must not end the game
    // Authenticated first, here, under the deadline: libdbus authenticates inside the first
    // blocking call otherwise, where its flush of the outgoing queue polls without a timeout, so
    // a bus that accepts the connection and never answers (stopped, hung) would hold the caller
    // forever. Each read_write polls at most the time left.
    using steady = std::chrono::steady_clock;
    const steady::time_point deadline = steady::now() + std::chrono::milliseconds(timeout_ms);
    while (!l.connection_get_is_authenticated(conn.c)) {
        const long long left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now()).count();
        if (!l.connection_get_is_connected(conn.c)) {
            append(why, size, "the bus at %s closed the connection while authenticating", address);
            return false;
        }
        if (left <= 0) {
            append(why, size, "the bus at %s did not answer within %d ms (authentication)", address, timeout_ms);
            return false;
        }
        l.connection_read_write(conn.c, static_cast<int>(left));
    }
    // dbus_bus_register, with the caller's timeout: Hello, then libdbus told the unique name.
    Message hello(l, l.message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS, "Hello"));
    if (!hello.m) {
        append(why, size, "out of memory");
        return false;
    }
    bool from_bus = false;
    Message reply(l, round_trip(conn, hello.m, timeout_ms, err, from_bus));
    if (!reply.m) {
        append(why, size, "no Hello from the bus at %s (%s: %s)", address, err.name(), err.message());
        return false;
    }
    DBusMessageIter it;
    const char* name = nullptr;
    if (l.iter_init(reply.m, &it) && l.iter_get_arg_type(&it) == DBUS_TYPE_STRING) l.iter_get_basic(&it, &name);
    if (!name || !l.bus_set_unique_name(conn.c, name)) {
        append(why, size, "the bus at %s gave no unique name", address);
        return false;
    }
    return true;
}

// ---- calls --------------------------------------------------------------------------------------

// Where a request goes: the service, and whether the bus may start it.
struct Service {
    const char* who;     // for the messages: to_string(Via)
    const char* bus;     // "system", "session"
    const char* behind;  // the service it passes requests on to, if any
    const char* name;
    const char* path;
    const char* interface;
    bool auto_start;
};
constexpr Service kPortal{"the Realtime portal", "session", "RealtimeKit", kPortalName, kPortalPath, kPortalInterface,
                          false};
constexpr Service kRtkit{"RealtimeKit", "system", "the service behind it", kRtkitName, kRtkitPath, kRtkitInterface,
                         true};

// How a round trip ended.
enum class Reply {
    ok,             // answered
    absent,         // the bus has no such name, or could not start it: nothing was delivered
    behind_absent,  // the service answered that the one behind it is absent (the portal, when
                    // RealtimeKit is not on the system bus)
    no_answer,      // delivered, or maybe, but no reply within the timeout
    refused,        // the service (or the bus's policy) answered with an error
    failed,         // here: out of memory, a reply of the wrong type
};

Reply classify(const Error& err, bool from_bus) noexcept {
    if (err.is(DBUS_ERROR_SERVICE_UNKNOWN) || err.is(DBUS_ERROR_NAME_HAS_NO_OWNER))
        return from_bus ? Reply::absent : Reply::behind_absent;
    // Activation failed (org.freedesktop.DBus.Error.Spawn.*): the service is not there either.
    if (from_bus && err.set() && std::strncmp(err.name(), "org.freedesktop.DBus.Error.Spawn.", 33) == 0)
        return Reply::absent;
    if (err.is(DBUS_ERROR_NO_REPLY) || err.is(DBUS_ERROR_TIMEOUT) || err.is(DBUS_ERROR_DISCONNECTED))
        return Reply::no_answer;
    return err.set() && !err.is(DBUS_ERROR_NO_MEMORY) ? Reply::refused : Reply::failed;
}

// One line for a call without a reply: who, what was asked, how it ended (the D-Bus error's name
// and message where it says more than the timeout).
Reply describe(const Service& s, const char* what, const Error& err, bool from_bus, int timeout_ms, char* why,
               std::size_t size) noexcept {
    const Reply r = classify(err, from_bus);
    switch (r) {
        case Reply::absent:
            append(why, size, "%s is not on the %s bus (%s: %s)", s.who, s.bus, err.name(), err.message());
            break;
        case Reply::behind_absent:
            append(why, size, "%s could not reach %s (%s: %s)", s.who, s.behind, err.name(), err.message());
            break;
        case Reply::no_answer:
            append(why, size, "%s did not answer %s within %d ms (%s)", s.who, what, timeout_ms, err.name());
            break;
        case Reply::refused: append(why, size, "%s refused %s: %s: %s", s.who, what, err.name(), err.message()); break;
        case Reply::ok:
        case Reply::failed: append(why, size, "%s: %s not sent (out of memory)", s.who, what); break;
    }
    return r;
}

// Properties.Get(service's interface, property), an integer of any width read into value, its
// D-Bus type into type when given.
Reply get_property(const Connection& conn, const Service& s, const char* property, int timeout_ms, long long& value,
                   char* why, std::size_t size, int* type = nullptr) noexcept {
    const Lib& l = conn.l;
    Message call(l, l.message_new_method_call(s.name, s.path, DBUS_INTERFACE_PROPERTIES, "Get"));
    if (!call.m) {
        append(why, size, "out of memory");
        return Reply::failed;
    }
    l.message_set_auto_start(call.m, s.auto_start ? 1 : 0);
    DBusMessageIter args;
    l.iter_init_append(call.m, &args);
    const char* interface = s.interface;
    if (!l.iter_append_basic(&args, DBUS_TYPE_STRING, &interface) ||
        !l.iter_append_basic(&args, DBUS_TYPE_STRING, &property)) {
        append(why, size, "out of memory");
        return Reply::failed;
    }
    Error err(l);
    bool from_bus = false;
    Message reply(l, round_trip(conn, call.m, timeout_ms, err, from_bus));
    char what[96];
    std::snprintf(what, sizeof what, "Properties.Get(%s)", property);
    if (!reply.m) return describe(s, what, err, from_bus, timeout_ms, why, size);
    DBusMessageIter it, v;
    if (!l.iter_init(reply.m, &it) || l.iter_get_arg_type(&it) != DBUS_TYPE_VARIANT) {
        append(why, size, "%s: %s: the reply is not a variant", s.who, what);
        return Reply::failed;
    }
    l.iter_recurse(&it, &v);
    if (type) *type = l.iter_get_arg_type(&v);
    switch (l.iter_get_arg_type(&v)) {
        case DBUS_TYPE_INT32: {
            dbus_int32_t x = 0;
            l.iter_get_basic(&v, &x);
            value = x;
            return Reply::ok;
        }
        case DBUS_TYPE_UINT32: {
            dbus_uint32_t x = 0;
            l.iter_get_basic(&v, &x);
            value = x;
            return Reply::ok;
        }
        case DBUS_TYPE_INT64: {
            dbus_int64_t x = 0;
            l.iter_get_basic(&v, &x);
            value = static_cast<long long>(x);
            return Reply::ok;
        }
        default: append(why, size, "%s: %s: not an integer", s.who, what); return Reply::failed;
    }
}

// A MakeThread*WithPID request: the method, the ids, the level and its D-Bus type ('u' or 'i').
struct Request {
    const char* method;
    std::int64_t pid;
    std::int64_t tid;
    int level;
    bool unsigned_level;
};

Reply ask(const Connection& conn, const Service& s, const Request& r, int timeout_ms, const Waiting& waiting,
          char* why, std::size_t size) noexcept {
    const Lib& l = conn.l;
    Message call(l, l.message_new_method_call(s.name, s.path, s.interface, r.method));
    if (!call.m) {
        append(why, size, "out of memory");
        return Reply::failed;
    }
    l.message_set_auto_start(call.m, s.auto_start ? 1 : 0);
    DBusMessageIter args;
    l.iter_init_append(call.m, &args);
    const dbus_uint64_t pid = static_cast<dbus_uint64_t>(r.pid), tid = static_cast<dbus_uint64_t>(r.tid);
    const dbus_uint32_t level_u = static_cast<dbus_uint32_t>(r.level);
    const dbus_int32_t level_i = r.level;
    const bool appended = l.iter_append_basic(&args, DBUS_TYPE_UINT64, &pid) &&
                          l.iter_append_basic(&args, DBUS_TYPE_UINT64, &tid) &&
                          (r.unsigned_level ? l.iter_append_basic(&args, DBUS_TYPE_UINT32, &level_u)
                                            : l.iter_append_basic(&args, DBUS_TYPE_INT32, &level_i));
    if (!appended) {
        append(why, size, "out of memory");
        return Reply::failed;
    }
    Error err(l);
    bool from_bus = false;
    Message reply(l, round_trip(conn, call.m, timeout_ms, err, from_bus, waiting));
    if (reply.m) return Reply::ok;
    char what[96];
    std::snprintf(what, sizeof what, "%s(%lld, %lld, %d)", r.method, static_cast<long long>(r.pid),
                  static_cast<long long>(r.tid), r.level);
    return describe(s, what, err, from_bus, timeout_ms, why, size);
}

// The portal's session bus connection, when it answers (its RTTimeUSecMax, as SDL probes it).
// false: no portal; why_not says why, briefly (the portal's absence is the usual case: it
// follows RealtimeKit's reason).
bool portal_answers(Connection& session, int timeout_ms, char* why_not, std::size_t size) noexcept {
    const char* address = nullptr;
    char* owned = nullptr;
    if (!session_address(session.l, address, owned)) {
        append(why_not, size, "no Realtime portal: no session bus");
        return false;
    }
    char why[200] = "";
    const bool connected = connect(session, address, timeout_ms, why, sizeof why);
    std::free(owned);
    if (!connected) {
        append(why_not, size, "no Realtime portal: session bus %s", why);
        return false;
    }
    long long v = 0;
    int type = DBUS_TYPE_INVALID;
    why[0] = '\0';
    switch (get_property(session, kPortal, "RTTimeUSecMax", timeout_ms, v, why, sizeof why, &type)) {
        case Reply::ok:
            // Before xdg-desktop-portal 1.15 RTTimeUSecMax was an int32 and a sandboxed caller's
            // thread id was not mapped: SDL takes an int64 for the fixed portal, and so does this.
            if (type == DBUS_TYPE_INT64) return true;
            append(why_not, size, "no Realtime portal: RTTimeUSecMax is not an int64 (a portal before 1.15)");
            break;
        case Reply::absent: append(why_not, size, "no Realtime portal on the session bus"); break;
        default: append(why_not, size, "no Realtime portal: %s", why); break;
    }
    return false;
}

// The system bus's connection; false: unreachable, why says so.
bool system_bus(Connection& system, int timeout_ms, char* why, std::size_t size) noexcept {
    const char* address = env("DBUS_SYSTEM_BUS_ADDRESS");
    if (!address) address = kSystemBusDefault;
    char failed[200] = "";
    if (connect(system, address, timeout_ms, failed, sizeof failed)) return true;
    append(why, size, "RealtimeKit: no system bus: %s", failed);
    return false;
}

int at_least_1(int timeout_ms) noexcept { return timeout_ms < 1 ? 1 : timeout_ms; }

Answer request(const Request& r, int timeout_ms, const Waiting& waiting = Waiting{}) noexcept {
    Answer a;
    timeout_ms = at_least_1(timeout_ms);
    const Lib& l = lib();
    if (!l.ok) {
        a.unreachable = true;
        append(a.error, sizeof a.error, "%s", l.why);
        return a;
    }
    if (r.pid <= 0 || r.tid <= 0) {
        append(a.error, sizeof a.error, "%s(%lld, %lld, %d) not asked: no such process or thread", r.method,
               static_cast<long long>(r.pid), static_cast<long long>(r.tid), r.level);
        return a;
    }
    if (r.unsigned_level && r.level < 1) {
        append(a.error, sizeof a.error, "%s(%lld, %lld, %d) not asked: a real-time priority is 1 or more", r.method,
               static_cast<long long>(r.pid), static_cast<long long>(r.tid), r.level);
        return a;
    }

    char no_portal[200] = "";
    {
        Connection session(l);
        if (portal_answers(session, timeout_ms, no_portal, sizeof no_portal)) {
            // It answered: it decides (as SDL), unless it left the bus since (then RealtimeKit).
            // Where it answers that RealtimeKit is not there, nobody was there to decide:
            // unreachable, by way of the portal.
            const Reply rep = ask(session, kPortal, r, timeout_ms, waiting, no_portal, sizeof no_portal);
            if (rep != Reply::absent) {
                a.granted = rep == Reply::ok;
                a.unreachable = rep == Reply::behind_absent;
                a.via = rep == Reply::ok || rep == Reply::refused || rep == Reply::behind_absent ? Via::portal
                                                                                                 : Via::none;
                if (!a.granted) append(a.error, sizeof a.error, "%s", no_portal);
                return a;
            }
        }
    }
    Connection system(l);
    if (!system_bus(system, timeout_ms, a.error, sizeof a.error)) {
        a.unreachable = true;
        append(a.error, sizeof a.error, "; %s", no_portal);
        return a;
    }
    const Reply rep = ask(system, kRtkit, r, timeout_ms, waiting, a.error, sizeof a.error);
    if (rep == Reply::ok) {
        a.granted = true;
        a.via = Via::realtimekit;
        a.error[0] = '\0';
        return a;
    }
    a.unreachable = rep == Reply::absent || rep == Reply::behind_absent;  // nothing was asked
    a.via = rep == Reply::refused ? Via::realtimekit : Via::none;
    append(a.error, sizeof a.error, "; %s", no_portal);
    return a;
}

// The three limits from one service; false: why says which property failed.
bool read_three(const Connection& conn, const Service& s, int timeout_ms, Limits& out, char* why,
                std::size_t size) noexcept {
    long long prio = 0, nice = 0, rttime = 0;
    if (get_property(conn, s, "MaxRealtimePriority", timeout_ms, prio, why, size) != Reply::ok ||
        get_property(conn, s, "MinNiceLevel", timeout_ms, nice, why, size) != Reply::ok ||
        get_property(conn, s, "RTTimeUSecMax", timeout_ms, rttime, why, size) != Reply::ok)
        return false;
    out.max_realtime_priority = static_cast<int>(prio);
    out.min_nice_level = static_cast<int>(nice);
    out.rttime_usec_max = rttime;
    return true;
}

}  // namespace

Limits read_limits(int timeout_ms) noexcept {
    Limits out;
    timeout_ms = at_least_1(timeout_ms);
    const Lib& l = lib();
    if (!l.ok) {
        append(out.error, sizeof out.error, "%s", l.why);
        return out;
    }
    char no_portal[200] = "";
    {
        Connection session(l);
        if (portal_answers(session, timeout_ms, no_portal, sizeof no_portal)) {
            char why[200] = "";
            Limits p;
            if (!read_three(session, kPortal, timeout_ms, p, why, sizeof why)) {
                append(no_portal, sizeof no_portal, "%s", why);
            } else if (p.max_realtime_priority > 0 || p.rttime_usec_max > 0) {
                p.known = true;
                p.via = Via::portal;
                return p;
            } else {
                // xdg-desktop-portal reads them from RealtimeKit once, when it starts: zeros when
                // RealtimeKit was not there then, even after it came (it still passes requests
                // on). RealtimeKit itself, then.
                append(no_portal, sizeof no_portal,
                       "the Realtime portal answers limits of 0 (read before RealtimeKit was there)");
            }
        }
    }
    Connection system(l);
    if (!system_bus(system, timeout_ms, out.error, sizeof out.error)) {
        append(out.error, sizeof out.error, "; %s", no_portal);
        return out;
    }
    char why[200] = "";
    if (read_three(system, kRtkit, timeout_ms, out, why, sizeof why)) {
        out.known = true;
        out.via = Via::realtimekit;
        return out;
    }
    out = Limits{};
    append(out.error, sizeof out.error, "%s; %s", why, no_portal);
    return out;
}

Answer make_realtime(std::int64_t pid, std::int64_t tid, int priority, int timeout_ms,
                     const Waiting& waiting) noexcept {
    return request({"MakeThreadRealtimeWithPID", pid, tid, priority, true}, timeout_ms, waiting);
}

Answer make_high_priority(std::int64_t pid, std::int64_t tid, int nice, int timeout_ms) noexcept {
    return request({"MakeThreadHighPriorityWithPID", pid, tid, nice, false}, timeout_ms);
}

}  // namespace pacer::platform::bus

#endif  // PACER_HAVE_DBUS_HEADERS
