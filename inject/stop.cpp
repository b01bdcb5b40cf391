#include "stop.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <exception>

namespace pacer_layer {
namespace {

constexpr int kSignals[2] = {SIGTERM, SIGINT};
int g_pipe[2] = {-1, -1};  // the handler writes, the layer's thread reads

extern "C" void on_stop_signal(int sig) {
    const int saved = errno;
    const auto b = static_cast<unsigned char>(sig);
    if (g_pipe[1] >= 0) (void)!write(g_pipe[1], &b, 1);
    errno = saved;
}

bool ours_now(int sig) {
    struct sigaction now{};
    return sigaction(sig, nullptr, &now) == 0 && (now.sa_flags & SA_SIGINFO) == 0 &&
           now.sa_handler == &on_stop_signal;
}

}  // namespace

bool StopSignals::watch(std::function<void()> close_all) {
    if (started_) return true;
    started_ = true;
    if (pipe2(g_pipe, O_CLOEXEC) != 0) {
        g_pipe[0] = g_pipe[1] = -1;
        return false;
    }
    close_all_ = std::move(close_all);
    try {
        thread_ = std::thread([this] { run(); });
    } catch (const std::exception&) {
        close(g_pipe[0]);
        close(g_pipe[1]);
        g_pipe[0] = g_pipe[1] = -1;
        return false;
    }
    bool any = false;
    for (int i = 0; i < 2; ++i) {
        struct sigaction old{};
        if (sigaction(kSignals[i], nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) != 0 ||
            old.sa_handler != SIG_DFL)
            continue;  // the game's own handler, or ignored: its choice
        struct sigaction sa{};
        sa.sa_handler = &on_stop_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        ours_[i] = sigaction(kSignals[i], &sa, nullptr) == 0;
        any = any || ours_[i];
    }
    return any;
}

void StopSignals::run() {
    for (;;) {
        unsigned char b = 0;
        const ssize_t n = read(g_pipe[0], &b, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || b == 0) return;  // 0: the layer is unloading
        close_all_();
        // The signal's own action, as without the layer: the process ends here.
        struct sigaction dfl{};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(b, &dfl, nullptr);
        kill(getpid(), b);
        return;
    }
}

StopSignals::~StopSignals() {
    if (!started_ || g_pipe[1] < 0) return;
    for (int i = 0; i < 2; ++i) {
        if (!ours_[i] || !ours_now(kSignals[i])) continue;  // the game replaced it since: leave it
        struct sigaction dfl{};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(kSignals[i], &dfl, nullptr);
    }
    const unsigned char quit = 0;
    (void)!write(g_pipe[1], &quit, 1);
    if (thread_.joinable()) thread_.join();
    close(g_pipe[0]);
    close(g_pipe[1]);
    g_pipe[0] = g_pipe[1] = -1;
}

}  // namespace pacer_layer
