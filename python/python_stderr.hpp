// The engine's log (warnings, progress lines) as a std::ostream that writes to Python's
// sys.stderr, so that a notebook shows it under the cell rather than in the kernel's terminal.
// Whole lines are handed over, each under the GIL, from whichever thread writes them.
#pragma once

#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>

namespace dlsim::python {

class PythonStderr final : private std::streambuf {
 public:
  PythonStderr() : stream_(this) {}
  ~PythonStderr() override;
  std::ostream& stream() { return stream_; }

 private:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;
  void write_out();  // with mutex_ held

  std::ostream stream_;
  std::mutex mutex_;
  std::string line_;
};

}  // namespace dlsim::python
