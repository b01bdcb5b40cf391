// FramePacer's inside: the parts it composes and the steps of a frame. Private to the library.
//
// A frame, in wait():
//   start_frame     match the display, apply pending settings, read the clock, tick the display
//   close_frame     the previous frame's cost and latency figures; the lead learns from it
//   plan_frame      does the swap pace it; the sync mode; the rate in force (VRR cap, cadence)
//   pace            the wait itself, by sync mode: grid slot, swap floor, lead before a vblank
//   describe        the FrameTiming: sync mode, latency figures, cadence, display time
// before_present() is present sync's wait (present_wait); report_present() classifies a present
// and hands what it says to vsync, the display's fit and the latency marks.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>

#include "pacer/frame_pacer.hpp"
#include "pacer/grid.hpp"
#include "pacer/latency.hpp"
#include "pacer/lead.hpp"
#include "pacer/rate.hpp"
#include "pacer/vblanks.hpp"
#include "pacer/vsync.hpp"
#include "pacer/waiter.hpp"
#include "core/present_queue.hpp"

namespace pacer {

// What paces a frame when the swap does not (the pacing thread's waits and the present side's).
inline PacingSource own_source(WaitMode mode) noexcept {
    return mode == WaitMode::sleep ? PacingSource::sleep
         : mode == WaitMode::spin  ? PacingSource::spin
                                   : PacingSource::hybrid;
}

class FramePacer::Impl {
public:
    Impl(const PacerConfig& config, TimeSource* ts);

    FrameTiming wait(detail::Handoff& handoff) noexcept;
    void settle(detail::Handoff& handoff) noexcept;  // what an inline finished spin changed
    void mark_input() noexcept;
    void before_present(std::uint64_t frame) noexcept;
    void report_present(const PresentInfo& present) noexcept { report_present(present, frames_); }
    void report_vblank(const VblankInfo& vblank) noexcept;
    // Thread roles (frame_pacer.hpp): the calling thread is the pacing thread (or, before the
    // first wait(), the one that made the pacer). A present thread's calls go to the queue.
    bool owns() const noexcept { return owner_.load(std::memory_order_relaxed) == std::this_thread::get_id(); }
    void post(detail::PresentEvent e) noexcept;
    PacerStatus snapshot() const noexcept;  // status() from another thread
    int desired_swap_interval() const noexcept {
        return owns() ? vsync_.desired_swap_interval() : swap_interval_.load(std::memory_order_relaxed);
    }
    Status set_config(const PacerConfig& config);
    void set_background(bool on) noexcept;
    const PacerConfig& config() const noexcept { return cfg_; }
    PacerStatus status() const noexcept;
    clock::time_point now() const noexcept { return ts_->now(); }
    void reset() noexcept { grid_.stop(); }
    void end_pacing() noexcept;
    void set_time_source(TimeSource* ts) noexcept;

private:
    // A frame's wait: its grid slot, what the waiter waits for, and how it is paced.
    struct PaceSlot {
        GridSlot grid;
        std::int64_t wait_until = 0;  // the floor when the swap paces; deadline - lead when early
        bool swap_paces = false;
        bool early = false;  // just_in_time: due at wait_until, ahead of the display deadline
        std::int64_t aim = 0;  // the display time it is aimed at; 0: the next slot
    };
    // A frame's display target (FrameTiming::display_target, display_target_msc), 0: none.
    struct Aim {
        std::int64_t target = 0;
        std::uint64_t msc = 0;  // when has_msc
        bool has_msc = false;
    };
    // A present reported, kept until its feedback (PresentInfo::id) can no longer come.
    struct Sent {
        PresentInfo info{};
        bool settled = false;    // its outcome was counted
        bool judged = false;     // its feedback told the lead whether it was late
        Aim aim{};               // its frame's display target
        bool lead_used = false;  // its frame was started a learned lead before its target
    };
    static constexpr int kSentKept = 16;  // presents in flight: feedback comes 1-3 frames late

    // The steps of wait(), in order.
    void enter_thread() noexcept;
    void drain() noexcept;      // the present thread's reports, in the order they were made
    void publish() noexcept;    // a copy of status() for other threads, when one asked
    std::int64_t start_frame() noexcept;
    ClosedFrame close_frame(std::int64_t now, std::optional<std::chrono::nanoseconds>* cost) noexcept;
    bool plan_frame(std::int64_t now, std::optional<std::chrono::nanoseconds> cost) noexcept;
    FrameTiming pace(std::int64_t now, bool swap_paces, detail::Handoff& handoff) noexcept;
    void describe(FrameTiming& t, const ClosedFrame& closed) noexcept;

    // The waits of pace() and before_present().
    FrameTiming first_frame(std::int64_t now) noexcept;
    FrameTiming present_placeholder(std::int64_t now) noexcept;
    FrameTiming just_in_time(std::int64_t now, bool swap_paces) noexcept;
    FrameTiming aligned_frame(std::int64_t now) noexcept;
    FrameTiming lead_wait(PaceSlot slot, std::int64_t lead, WaitMode mode, bool locked, bool aligned,
                          std::int64_t now) noexcept;
    FrameTiming grid_wait(std::int64_t now, bool swap_paces, detail::Handoff& handoff) noexcept;
    FrameTiming present_wait(std::int64_t now) noexcept;
    PaceSlot swap_slot() noexcept;
    PaceSlot grid_slot(std::int64_t now) const noexcept;
    FrameTiming record(const PaceSlot& slot, const WaitResult& r, std::int64_t now) noexcept;
    std::int64_t display_target(const PaceSlot& slot) const noexcept;
    void aim_display(FrameTiming& t, const PaceSlot& slot) noexcept;
    void judge_late(Sent& s) noexcept;
    void report_present(const PresentInfo& present, std::uint64_t newest) noexcept;
    void mark_present(std::uint64_t frame, std::int64_t call) noexcept;  // before_present's marks
public:
    // Present sync for a frame behind the newest (a present thread's, or the pacing thread's own
    // pipelined present): waits for the next present slot the pacing thread published (its grid,
    // or a vblank less a lead while the swap paces and the vblanks are known) with the present
    // side's own waiter; fills the event's wait record. Touches only the published plan and the
    // present side's state.
    void present_side_wait(detail::PresentEvent& e) noexcept;
private:
    void take_present_wait(const detail::PresentEvent& e, std::uint64_t frame) noexcept;
    const Aim& aim_of(std::uint64_t frame) const noexcept;  // a frame's display target (0: newest)

    // Presents and their feedback (pacer_present.cpp).
    Sent* sent(std::uint64_t id) noexcept;
    void remember(const PresentInfo& present) noexcept;
    void feedback(Sent& sent, const PresentInfo& in) noexcept;
    void count_outcome(Sent& sent, PresentOutcome outcome) noexcept;

    // Helpers.
    void apply_config() noexcept;
    void set_period(double hz) noexcept;
    void govern(std::int64_t now, std::optional<std::chrono::nanoseconds> cost) noexcept;
    void display_delta(FrameTiming& t) noexcept;
    void leave_swap_grid(std::int64_t now) noexcept;  // re-anchor after the swap paced
    bool align_torn_frames(bool swap_paces, std::int64_t now) const noexcept;
    std::int64_t next_target(std::int64_t earliest) const noexcept;
    std::int64_t lead_ns() const noexcept;
    std::int64_t vblank_period() const noexcept { return vblanks_.period().count(); }
    std::int64_t vblank_after(std::int64_t t) const noexcept;
    WaitMode active_mode() const noexcept { return rate_.background() ? WaitMode::sleep : cfg_.mode; }
    RateConfig rate_config() const noexcept;
    RateInputs rate_inputs() const noexcept;

    PacerConfig cfg_;
    TimeSource* ts_;
    // The parts.
    HybridWaiter waiter_;
    VsyncController vsync_;
    Vblanks vblanks_;
    DeadlineGrid grid_;
    LatencyTracker latency_;
    LeadController lead_;
    RatePlanner rate_;
    DisplayDelta delta_;
    // The pacer's own state.
    std::int64_t last_wake_ = 0;
    std::int64_t prev_due_ = 0;     // the previous frame's deadline (display_dt's schedule)
    std::uint64_t frames_ = 0;
    std::uint64_t missed_ = 0;
    double vsync_hz_ = 0;           // the rate the vsync decision was configured with
    bool pending_ = false;          // settings changed since the last wait()
    bool grid_dirty_ = false;       // the swap paced: re-anchor the grid before using it
    bool pacing_ = false;           // begin_pacing() was called ...
    std::thread::id pacing_thread_; // ... on this thread
    SyncMode sync_ = SyncMode::frame_start;  // in force for the frame in progress
    bool swap_paces_ = false;       // the swap paces the frame in progress
    bool second_call_ = false;      // before_present() was called in the frame in progress
    bool host_presents_ = false;    // ... and in the previous one: present sync waits there
    FrameTiming present_record_{};  // present sync: the last wait made in before_present()
    // Presentation feedback.
    std::array<Sent, kSentKept> sent_{};
    int sent_next_ = 0;
    // The display targets of the newest frames (aim_display), by frame id: a present is for the
    // frame it names, else the newest.
    struct FrameAim {
        std::uint64_t frame = 0;
        Aim aim{};
    };
    std::array<FrameAim, LatencyTracker::kMaxInFlight> aims_{};
    // Frames in flight: how far behind the newest frame each of the last presents was.
    std::array<std::uint8_t, 15> depths_{};
    int depth_count_ = 0, depth_next_ = 0;
    // The present thread's side (frame_pacer.hpp, thread roles).
    std::atomic<std::thread::id> owner_;
    std::atomic<std::uint64_t> newest_{0};       // frames_, for the present thread's reports
    std::atomic<std::uint64_t> reports_lost_{0};  // the queue was full
    std::atomic<std::thread::id> present_thread_{};
    mutable std::atomic<bool> status_wanted_{false};  // another thread asked for status()
    std::atomic<int> swap_interval_{0};  // desired_swap_interval() at the last wait(), for the present thread
    // The present side's present sync: the plan the pacing thread publishes at each wait(), and
    // the present side's own waiter (its learned margin) and last slot.
    struct PresentPlan {
        std::atomic<bool> on{false};          // sync present, not in the background
        std::atomic<std::int64_t> grid{0};    // a grid deadline
        std::atomic<std::int64_t> period{0};  // the grid's period
        std::atomic<std::int64_t> vblank{0};  // a fitted vblank, 0: none (the swap does not pace)
        std::atomic<std::int64_t> vblank_period{0};
        std::atomic<int> mode{0};             // WaitMode of the wait
        std::atomic<std::int64_t> miss_tolerance{0};
    };
    PresentPlan plan_;
    HybridWaiter present_waiter_;
    std::int64_t present_last_ = 0;     // the present side's last slot
    std::int64_t present_wake_ = 0;     // ... and when its wait returned
    mutable std::mutex snapshot_mutex_;  // the pacing thread only try_locks it
    PacerStatus snapshot_{};
    detail::PresentQueue queue_;
    PresentCounts presents_{};
    std::uint32_t shown_since_ = 0, dropped_since_ = 0;  // since the last wait()
};

}  // namespace pacer
