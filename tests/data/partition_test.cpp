#include "models/data/partition.hpp"

#include <doctest/doctest.h>

#include <set>

#include "data_test_files.hpp"

using namespace dlsim::models;
using namespace dlsim::models::testing;

namespace {

// counts[c] samples of class c, class by class: class c occupies a contiguous index range.
Dataset labelled(const std::vector<uint32_t>& counts) {
  Dataset data;
  data.name = "toy";
  data.num_classes = static_cast<uint32_t>(counts.size());
  for (uint32_t c = 0; c < counts.size(); ++c) data.labels.insert(data.labels.end(), counts[c], c);
  data.features = Eigen::MatrixXf::Zero(1, static_cast<Eigen::Index>(data.labels.size()));
  return data;
}

// The agents x classes table as rows of counts.
using Table = std::vector<std::vector<uint32_t>>;

// Every index appears in at most one shard, and shards are sorted.
void check_disjoint_sorted(const Partition& p) {
  std::set<uint32_t> seen;
  for (const auto& shard : p.shards) {
    CHECK(std::is_sorted(shard.begin(), shard.end()));
    for (uint32_t i : shard) CHECK(seen.insert(i).second);
  }
}

}  // namespace

TEST_CASE("by_label with k = 1 and 10 agents gives agent i only class i") {
  const Dataset data = labelled(std::vector<uint32_t>(10, 6));
  const Partition p = partition_by_label(data, 10, 1, 7);
  REQUIRE(p.shards.size() == 10);
  for (uint32_t a = 0; a < 10; ++a) {
    std::vector<uint32_t> row(10, 0);
    row[a] = 6;
    CHECK(p.class_counts[a] == row);
    CHECK(p.shards[a] ==
          std::vector<uint32_t>{6 * a, 6 * a + 1, 6 * a + 2, 6 * a + 3, 6 * a + 4, 6 * a + 5});
  }
}

TEST_CASE("by_label with k = 2 splits each shared class evenly between its two holders") {
  // Agent i holds classes 2i mod 10 and 2i+1 mod 10: agents i and i+5 share both, 3 samples each.
  const Partition p = partition_by_label(labelled(std::vector<uint32_t>(10, 6)), 10, 2, 7);
  for (uint32_t a = 0; a < 10; ++a) {
    std::vector<uint32_t> row(10, 0);
    row[(2 * a) % 10] = 3;
    row[(2 * a + 1) % 10] = 3;
    CHECK(p.class_counts[a] == row);
  }
  check_disjoint_sorted(p);
}

TEST_CASE("explicit class lists: the first holders of a class get its remainder") {
  // Class 0 has 7 samples shared by agents 0, 1, 2 -> 3, 2, 2; class 2 only agent 2; class 1
  // nobody.
  const Partition p = partition_classes(labelled({7, 4, 5}), {{0}, {0}, {2, 0}}, 3);
  CHECK(p.class_counts == Table{{3, 0, 0}, {2, 0, 0}, {2, 0, 5}});
  check_disjoint_sorted(p);
}

TEST_CASE("iid shards are equal, drop the remainder and hold every class") {
  const Dataset data = labelled(std::vector<uint32_t>(10, 100));
  const Partition p = partition_iid(data, 7, 11);  // 1000 = 7 * 142 + 6 unused
  size_t total = 0;
  for (size_t a = 0; a < 7; ++a) {
    CHECK(p.shards[a].size() == 142);
    uint32_t sum = 0;
    for (uint32_t c = 0; c < 10; ++c) {
      CHECK(p.class_counts[a][c] > 0);
      sum += p.class_counts[a][c];
    }
    CHECK(sum == 142);
    total += p.shards[a].size();
  }
  CHECK(total == 994);
  check_disjoint_sorted(p);
  CHECK(partition_iid(data, 7, 11).shards == p.shards);
  CHECK(partition_iid(data, 7, 12).shards != p.shards);
}

TEST_CASE("Dirichlet counts sum to the class totals") {
  const Dataset data = labelled({100, 50, 30, 80});
  const Partition p = partition_dirichlet(data, 5, 0.5, 1);
  for (uint32_t c = 0; c < 4; ++c) {
    uint32_t sum = 0;
    for (const auto& row : p.class_counts) sum += row[c];
    CHECK(sum == std::vector<uint32_t>{100, 50, 30, 80}[c]);
  }
  check_disjoint_sorted(p);
  CHECK(partition_dirichlet(data, 5, 0.5, 1).class_counts == p.class_counts);
  CHECK(partition_dirichlet(data, 5, 0.5, 2).class_counts != p.class_counts);
}

TEST_CASE("Dirichlet with a huge alpha splits every class equally") {
  // alpha = 1e6: proportions 1/4 +- ~0.001, so 100 * P rounds to 25, 50, 75 exactly.
  const Partition p = partition_dirichlet(labelled({100, 100}), 4, 1e6, 9);
  CHECK(p.class_counts == Table{{25, 25}, {25, 25}, {25, 25}, {25, 25}});
}

TEST_CASE("bad partition requests are input errors") {
  const Dataset data = labelled(std::vector<uint32_t>(10, 6));
  CHECK(input_error([&] { partition_by_label(data, 10, 11, 0); }) ==
        "by_label partition: labels_per_agent must be in [1, 10] (the classes of toy), got 11");
  CHECK(
      input_error([&] { partition_iid(data, 61, 0); }) ==
      "iid partition of toy (60 samples): agent 0 gets no samples; use fewer agents than samples");
  CHECK(input_error([&] {
          partition_classes(data, {{1}, {10}}, 0);
        }) == "explicit partition: agent 1: class 10 out of range [0, 10)");
  CHECK(input_error([&] {
          partition_classes(data, {{1}, {}}, 0);
        }) == "explicit partition: agent 1 has no classes");
  CHECK(input_error([&] {
          partition_classes(data, {{1, 2, 1}}, 0);
        }) == "explicit partition: agent 0: class 1 listed twice");
  CHECK(input_error([&] { partition_dirichlet(data, 3, 0.0, 0); }) ==
        "dirichlet partition: alpha must be > 0, got 0");
  CHECK(input_error([&] {
          make_partition({PartitionKind::kExplicit, 1, 0.5, {{0}}}, data, 2, 0);
        }) == "explicit partition: 1 class lists for 2 agents");
}

TEST_CASE("an agent whose classes have no samples is an input error") {
  const Dataset data = labelled({4, 4, 0});  // class 2 is empty
  CHECK(
      input_error([&] { partition_by_label(data, 3, 1, 0); }) ==
      "by_label(k=1) partition of toy (8 samples): agent 2 gets no samples; its classes have fewer "
      "samples than agents sharing them");
}
