// Reading sweep outputs in tests: a file's text, and sweep.csv without its wall-clock column
// (the one thing that differs between two sweeps of the same runs). Shared with tests/cli.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string without_wall(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, result;
  long wall = -1;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) cells.push_back(cell);
    if (wall < 0) wall = std::find(cells.begin(), cells.end(), "wall_s") - cells.begin();
    REQUIRE(wall < static_cast<long>(cells.size()));
    cells.erase(cells.begin() + wall);
    for (const std::string& c : cells) result += c + ",";
    result += "\n";
  }
  return result;
}
