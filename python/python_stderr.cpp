#include "python/python_stderr.hpp"

#include <pybind11/pybind11.h>

namespace dlsim::python {

namespace py = pybind11;

PythonStderr::~PythonStderr() {
  std::lock_guard lock(mutex_);
  write_out();
}

PythonStderr::int_type PythonStderr::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  const char c = traits_type::to_char_type(ch);
  return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
}

std::streamsize PythonStderr::xsputn(const char* s, std::streamsize n) {
  std::lock_guard lock(mutex_);
  line_.append(s, static_cast<size_t>(n));
  // A progress bar redraws its line with '\r': hand over at either end of a line.
  if (line_.find_first_of("\n\r") != std::string::npos) write_out();
  return n;
}

int PythonStderr::sync() {
  std::lock_guard lock(mutex_);
  write_out();
  return 0;
}

void PythonStderr::write_out() {
  if (line_.empty()) return;
  py::gil_scoped_acquire gil;
  try {
    py::object err = py::module_::import("sys").attr("stderr");
    if (!err.is_none()) {
      err.attr("write")(line_);
      err.attr("flush")();
    }
  } catch (const py::error_already_set&) {
    // A closed or replaced sys.stderr: the log is lost, the run is not.
  }
  line_.clear();
}

}  // namespace dlsim::python
