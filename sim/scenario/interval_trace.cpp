#include "sim/scenario/interval_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

// One field in seconds -> nanoseconds; "inf" only where `infinite_ok`.
SimTime seconds(const std::string& field, bool infinite_ok, const std::string& where,
                const std::string& name) {
  if (infinite_ok && field == "inf") return SimTime::max();
  double value = 0;
  size_t used = 0;
  try {
    value = std::stod(field, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != field.size() || !std::isfinite(value))
    throw InputError(fmt::format("{}: {}: expected seconds{}, got \"{}\"", where, name,
                                 infinite_ok ? " or \"inf\"" : "", field));
  if (value < 0) throw InputError(fmt::format("{}: {}: negative time {}", where, name, value));
  if (value * 1e9 >= static_cast<double>(SimTime::max().ns) / 4)
    throw InputError(fmt::format("{}: {}: {} s is beyond the simulated clock", where, name, value));
  return SimTime{std::llround(value * 1e9)};
}

uint32_t id(const std::string& field, const std::string& name, const TraceFormat& format,
            const std::string& where) {
  if (field.empty() || field.size() > 9 ||
      field.find_first_not_of("0123456789") != std::string::npos) {
    const bool vowel = std::string("aeiou").find(format.id_noun.front()) != std::string::npos;
    throw InputError(fmt::format("{}: {}: expected {} {} number, got \"{}\"", where, name,
                                 vowel ? "an" : "a", format.id_noun, field));
  }
  const auto value = static_cast<uint32_t>(std::stoul(field));
  if (value >= format.id_limit)
    throw InputError(fmt::format("{}: {}: unknown {} {} (the scenario has {}: 0..{})", where,
                                 name, format.id_noun, value, format.id_limit,
                                 format.id_limit - 1));
  return value;
}

}  // namespace

std::vector<TraceRow> read_interval_trace(const std::string& path, const TraceFormat& format) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot read", path));
  std::string header;
  for (const std::string& name : format.ids) header += name + ",";
  header += format.from + "," + format.until;
  const size_t field_count = format.ids.size() + 2;
  std::vector<TraceRow> rows;
  std::vector<std::string> fields;
  std::string text;
  for (size_t number = 1; std::getline(in, text); ++number) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty() || text[0] == '#' || text == header) continue;
    const std::string where = fmt::format("{}:{}", path, number);
    fields.clear();
    std::stringstream split(text);
    for (std::string f; std::getline(split, f, ',');) fields.push_back(f);
    if (fields.size() != field_count)
      throw InputError(fmt::format("{}: expected {} fields ({}), got {}", where, field_count,
                                   header, fields.size()));
    TraceRow row;
    row.line = number;
    for (size_t k = 0; k < format.ids.size(); ++k)
      row.ids[k] = id(fields[k], format.ids[k], format, where);
    const std::string& from = fields[field_count - 2];
    const std::string& until = fields[field_count - 1];
    row.interval = {seconds(from, false, where, format.from),
                    seconds(until, true, where, format.until)};
    if (!(row.interval.from < row.interval.until))
      throw InputError(fmt::format("{}: {} {} is not after {} {}", where, format.until, until,
                                   format.from, from));
    rows.push_back(row);
  }
  return rows;
}

void throw_overlap(const std::string& path, const TraceRow& a, const TraceRow& b,
                   const std::string& whose) {
  throw InputError(fmt::format("{}:{}: {}'s interval overlaps line {}'s", path,
                               std::max(a.line, b.line), whose, std::min(a.line, b.line)));
}

}  // namespace dlsim
