// Saved state described once: each stateful part lists its fields in one function,
// `void archive(StateArchive& ar)`, which a saving archive (around a StateWriter) and a loading
// one (around a StateReader) both walk, so the order written and the order read cannot drift
// apart. What loading must do besides reading (check a length against this run, rebuild derived
// state) stays in the same function behind `if (ar.loading())`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/state_io.hpp"

namespace dlsim {

class StateArchive {
 public:
  /// Saving: every call writes the value it is handed and changes nothing.
  explicit StateArchive(StateWriter& out) : out_(&out) {}
  /// Loading: every call replaces the value it is handed by the saved one.
  explicit StateArchive(StateReader& in) : in_(&in) {}

  bool loading() const { return in_ != nullptr; }

  /// One trivially copyable value, as its bytes.
  template <class T>
  void value(T& v) {
    if (in_ != nullptr)
      v = in_->get<T>();
    else
      out_->put(v);
  }
  /// A list of any length; loading replaces `v`.
  template <class T>
  void vector(std::vector<T>& v) {
    if (in_ != nullptr)
      v = in_->get_vector<T>();
    else
      out_->put_vector(v);
  }
  /// A list whose length this run already knows (one per agent, per link): loading fails with
  /// `what` when the saved one has another.
  template <class T>
  void sized_vector(std::vector<T>& v, std::string_view what) {
    if (in_ == nullptr) return out_->put_vector(v);
    std::vector<T> loaded = in_->get_vector<T>();
    if (loaded.size() != v.size()) fail(what);
    v = std::move(loaded);
  }
  /// Values of a known count, read in place (the saved count must be the same).
  template <class T>
  void span(std::span<T> v) {
    if (in_ != nullptr)
      in_->get_span(v);
    else
      out_->put_span(std::span<const T>(v));
  }
  void string(std::string& s) {
    if (in_ != nullptr)
      s = in_->get_string();
    else
      out_->put_string(s);
  }
  /// Marks the start of a part; loading checks the mark.
  void section(uint32_t tag) {
    if (in_ != nullptr)
      in_->section(tag);
    else
      out_->section(tag);
  }
  /// A value this run already has (a count, an id): saving writes it; loading fails with `what`
  /// unless it reads the same.
  template <class T>
  void expect(const T& v, std::string_view what) {
    if (in_ == nullptr) return out_->put(v);
    if (!(in_->get<T>() == v)) fail(what);
  }
  /// The length of a list walked element by element: saving writes `n` and returns it, loading
  /// returns the saved length.
  uint64_t count(uint64_t n) {
    value(n);
    return n;
  }
  /// A list of any length whose elements `each(T&)` walks; loading replaces the list, one
  /// element at a time (a damaged length runs out of file, not out of memory).
  template <class T, class Each>
  void items(std::vector<T>& list, Each each) {
    const uint64_t n = count(list.size());
    if (!loading()) {
      for (T& x : list) each(x);
      return;
    }
    list.clear();
    for (uint64_t i = 0; i < n; ++i) each(list.emplace_back());
  }
  /// Loading only: InputError "PATH: damaged checkpoint at byte N: what".
  [[noreturn]] void fail(std::string_view what) const {
    // A check a part runs while saving too would be a bug of that part, not a damaged file.
    DLSIM_CHECK(in_ != nullptr, "a saving archive was asked to fail: {}", what);
    in_->fail(std::string(what));
  }

 private:
  StateWriter* out_ = nullptr;
  StateReader* in_ = nullptr;
};

/// Saves a part held const through its one archive() function: a saving archive only reads the
/// fields it is handed, so the part is not changed.
template <class Part, class Archive>
void save_part(const Part& part, Archive& ar) {
  const_cast<Part&>(part).archive(ar);
}

}  // namespace dlsim
