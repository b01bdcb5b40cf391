// pacer/names.hpp - one name table per public enum, for to_string(), parsing, menus and help text.
//
//   EnumName<E>           one {value, name} row of an enum's name table
//   name_of(table, v)     the name; "?" for a value not in the table
//   parse_name(table, s, &v)   the value named s (exact); false and v untouched otherwise
//   index_of(table, v)    a menu's index; -1 when not listed
//   is_named(table, v)    the value is one of the table's (validates a cast integer)
// All constexpr or noexcept, pure: any thread.
//
//   for (const auto& e : pacer::kWaitModeNames) add_menu_item(e.name, e.value);
//   pacer::WaitMode m;
//   bool known = pacer::parse_name(pacer::kWaitModeNames, "hybrid", &m);   // false: m untouched
//
// The tables themselves sit beside their enums (kWaitModeNames, kLatePolicyNames, ... in
// modes.hpp; kDisplayStateNames in display.hpp, ...). Names are part of the stable API: they appear in
// capture files and on command lines.
#pragma once

#include <cstddef>
#include <cstring>

namespace pacer {

template <class Enum>
struct EnumName {
    Enum value;
    const char* name;
};

// The name of value in table; "?" when the value is not listed (a cast integer).
template <class Enum, std::size_t N>
constexpr const char* name_of(const EnumName<Enum> (&table)[N], Enum value) noexcept {
    for (const EnumName<Enum>& e : table)
        if (e.value == value) return e.name;
    return "?";
}

// Sets *out to the value named text (exact, case-sensitive); false and *out untouched otherwise.
template <class Enum, std::size_t N>
bool parse_name(const EnumName<Enum> (&table)[N], const char* text, Enum* out) noexcept {
    if (!text || !out) return false;
    for (const EnumName<Enum>& e : table) {
        if (std::strcmp(text, e.name) == 0) {
            *out = e.value;
            return true;
        }
    }
    return false;
}

// Position of value in table (a menu's index); -1 when it is not listed.
template <class Enum, std::size_t N>
constexpr int index_of(const EnumName<Enum> (&table)[N], Enum value) noexcept {
    for (std::size_t i = 0; i < N; ++i)
        if (table[i].value == value) return static_cast<int>(i);
    return -1;
}

// True when value is one of the table's values (validates an enum that came through a cast).
template <class Enum, std::size_t N>
constexpr bool is_named(const EnumName<Enum> (&table)[N], Enum value) noexcept {
    for (const EnumName<Enum>& e : table)
        if (e.value == value) return true;
    return false;
}

}  // namespace pacer
