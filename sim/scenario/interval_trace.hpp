// Traces of time intervals as CSV files, shared by churn (agent,offline_from,online_again) and
// link failures (u,v,down_from,up_again): one interval per line, leading id fields then the
// interval's start and end in seconds (the end may be "inf"); an optional header line of
// exactly the field names, blank lines and '#' comments. Every error is one line that names
// PATH:LINE.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.hpp"

namespace dlsim {

struct TraceFormat {
  std::vector<std::string> ids;  ///< names of the leading id fields: 1 or 2 of them
  std::string id_noun;           ///< what an id is: "agent", "node"
  uint32_t id_limit = 0;         ///< every id is below it (the scenario's count)
  std::string from, until;       ///< names of the interval's fields
};

struct TraceRow {
  std::array<uint32_t, 2> ids{};  ///< the first format.ids.size() are set
  TimeInterval interval;
  size_t line = 0;
};

/// Reads every interval of `path`, in file order. InputError "PATH:LINE: message" for a line
/// with the wrong field count, an id that is not a number or not below the limit, a time that
/// is not a non-negative number of seconds, or an end not after the start.
std::vector<TraceRow> read_interval_trace(const std::string& path, const TraceFormat& format);

/// Sorts `rows` by ids, then start; InputError "PATH:LINE: <whose(row)>'s interval overlaps line
/// N's" (LINE the later line of the two) when two rows with the same ids overlap.
template <class Whose>
void sort_disjoint(std::vector<TraceRow>& rows, const std::string& path, Whose whose);

/// The formatted overlap error (out of line, so the template stays small).
[[noreturn]] void throw_overlap(const std::string& path, const TraceRow& a, const TraceRow& b,
                                const std::string& whose);

template <class Whose>
void sort_disjoint(std::vector<TraceRow>& rows, const std::string& path, Whose whose) {
  std::stable_sort(rows.begin(), rows.end(), [](const TraceRow& x, const TraceRow& y) {
    return x.ids != y.ids ? x.ids < y.ids : x.interval.from < y.interval.from;
  });
  for (size_t k = 1; k < rows.size(); ++k)
    if (rows[k].ids == rows[k - 1].ids && rows[k].interval.from < rows[k - 1].interval.until)
      throw_overlap(path, rows[k - 1], rows[k], whose(rows[k]));
}

}  // namespace dlsim
