// pacer/grid.hpp - the deadline grid: when frame k is due, and which slot a late frame takes.
//
//   DeadlineGrid      the grid: rate, anchor, the slot last taken
//     set_rate        the period in force (re-anchors at the last deadline once started)
//     start, stop     anchor slot 0 at a time; forget the grid (frame indices continue)
//     next_slot       the next slot for a frame that is ready at `now`, under a late policy (pure)
//     after           the next slot, due at a time off the grid (the swap or a vblank paces it)
//     take            the slot a frame took
//   GridSlot          one slot: frame index, deadline, slots skipped
//
//   pacer::DeadlineGrid grid;
//   grid.set_rate(144.0);
//   grid.start(now);                                                 // slot 0 is due now
//   pacer::GridSlot s = grid.next_slot(now, pacer::LatePolicy::catch_up, 1);
//   wait_until(s.deadline);
//   grid.take(s);
//
// Exact. Slot k is due at anchor + k x period, the period kept in fixed point (whole nanoseconds
// plus a 32-bit binary fraction): after 10^6 frames at 144 Hz a deadline is within 1 ns of the
// exact value, and the arithmetic stays exact for any slot count (a week-long suspend at 10 kHz
// included: k x fraction is split into 32-bit halves, so nothing overflows).
//
// Late frames (next_slot called at or after the next deadline):
//   catch_up: the grid is kept; a frame whose deadline has passed is due at once, but at most
//       max_catch_up passed deadlines are served that way; beyond them the slots are skipped.
//       With max_catch_up = 1 a frame that ran 0.3 ms over gives 16.97 + 16.37 ms instead of
//       16.97 + 33.3 ms, and a 10 s debugger stop yields one immediate frame, not 600.
//   skip: the grid is kept and every passed slot is skipped: the late frame waits for the next
//       slot (intervals stay whole multiples of the period; one long interval).
//   resync: the grid restarts at the late frame (spin_sleep's "Delay", DXVK beyond one frame).
// A clock jump (suspend, debugger) is a very late frame under the same rule.
//
// Frame indices (GridSlot::index) count slots since the first grid, skipped ones included, across
// restarts, rate changes and stop(). Pure logic: no clock, no allocation. Thread safety: none.
#pragma once

#include <chrono>
#include <cstdint>

#include "pacer/clock.hpp"
#include "pacer/modes.hpp"

namespace pacer {

struct GridSlot {
    std::uint64_t index = 0;        // frame index of the slot
    clock::time_point deadline{};   // when the frame is due
    std::uint32_t skipped = 0;      // slots skipped before it by the late policy
    std::uint64_t k = 0;            // the slot's number on the current grid (for take())
    bool restart = false;           // resync: the grid restarts at this slot (its new slot 0)
};

class DeadlineGrid {
public:
    // The period of hz frames per second (hz in (0, 10 kHz], checked by the caller's config).
    // Once started, the grid restarts at the last deadline: the next slot is one new period later.
    void set_rate(double hz) noexcept;
    std::chrono::nanoseconds period() const noexcept { return period_rounded_; }  // rounded to 1 ns

    // Slot 0 at `now`; returns its frame index (one past the last slot of the previous grid).
    std::uint64_t start(clock::time_point now) noexcept;
    bool started() const noexcept { return started_; }
    // Forget the grid: the next start() anchors a new one; indices continue past the last slot.
    void stop() noexcept;
    // Slot 0 at `anchor` (leaving the swap's pacing, a rate change); indices continue.
    void restart_at(clock::time_point anchor) noexcept;

    // The next slot for a frame ready at `now` (see "Late frames"). Pure: call take() to move on.
    GridSlot next_slot(clock::time_point now, LatePolicy policy, int max_catch_up) const noexcept;
    // The next slot, due at `deadline` off the grid (the swap or a vblank paces the frame).
    GridSlot after(clock::time_point deadline) const noexcept;
    // The frame took `slot`: it becomes the last slot (and, for a restart, slot 0 of a new grid).
    void take(const GridSlot& slot) noexcept;

    clock::time_point deadline_of(std::uint64_t k) const noexcept;  // slot k of the current grid
    clock::time_point last_deadline() const noexcept { return clock::from_ns(last_deadline_); }
    std::uint64_t index() const noexcept { return index_base_ + k_; }  // of the last slot taken

private:
    std::int64_t period_whole_ = 0;   // whole ns ...
    std::uint64_t period_frac_ = 0;   // ... + this / 2^32 ns
    std::chrono::nanoseconds period_rounded_{0};
    std::int64_t anchor_ = 0;         // deadline of slot 0
    std::uint64_t k_ = 0;             // the last slot taken, relative to the anchor
    std::uint64_t index_base_ = 0;    // frame index of slot 0
    std::int64_t last_deadline_ = 0;
    bool started_ = false;
};

}  // namespace pacer
