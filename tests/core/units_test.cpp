#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

using namespace dlsim;

TEST_CASE("durations parse in ns, us, ms and s") {
  CHECK(parse_duration("2ms").ns == 2000000);
  CHECK(parse_duration("1.5us").ns == 1500);
  CHECK(parse_duration("10ns").ns == 10);
  CHECK(parse_duration("3s").ns == 3000000000);
  CHECK(parse_duration("0").ns == 0);
  CHECK(parse_duration("0.25 ms").ns == 250000);
}

TEST_CASE("rates and sizes parse with decimal prefixes") {
  CHECK(parse_rate_bps("100Mbps") == 100000000);
  CHECK(parse_rate_bps("1Gbps") == 1000000000);
  CHECK(parse_rate_bps("56kbps") == 56000);
  CHECK(parse_rate_bps("9600bps") == 9600);
  CHECK(parse_size_bytes("512B") == 512);
  CHECK(parse_size_bytes("4KB") == 4000);
  CHECK(parse_size_bytes("1.5MB") == 1500000);
  CHECK(parse_size_bytes("1KiB") == 1024);
}

TEST_CASE("bad unit strings are input errors that quote the text") {
  CHECK_THROWS_WITH_AS(parse_rate_bps("10 MB"),
                       "expected a rate such as \"10Mbps\", got \"10 MB\"", InputError);
  CHECK_THROWS_AS(parse_duration("5"), InputError);  // a unit is required except for zero
  CHECK_THROWS_AS(parse_duration("ms"), InputError);
  CHECK_THROWS_AS(parse_duration("2 hours"), InputError);
  CHECK_THROWS_WITH_AS(parse_duration("-1ms"), doctest::Contains("must not be negative"),
                       InputError);
  CHECK_THROWS_AS(parse_rate_bps("0Mbps"), InputError);
  CHECK_THROWS_AS(parse_size_bytes("1e400B"), InputError);
}

TEST_CASE("formatting round-trips through parsing") {
  for (int64_t ns : {0LL, 1LL, 1500LL, 2000000LL, 7400000LL, 3000000000LL, 123456789LL})
    CHECK(parse_duration(format_duration(SimTime{ns})).ns == ns);
  CHECK(format_duration(SimTime::from_ms(2)) == "2ms");
  CHECK(format_rate(100000000) == "100Mbps");
  CHECK(format_size(800000) == "800KB");
  CHECK(parse_rate_bps(format_rate(1234567)) == 1234567);
}

TEST_CASE("transmission time is bytes * 8 / bandwidth, rounded up") {
  CHECK(transmission_time(800000, 1000000000).ns == 6400000);  // 800 KB at 1 Gbit/s = 6.4 ms
  CHECK(transmission_time(1, 1000000000).ns == 8);
  CHECK(transmission_time(1, 3).ns == 2666666667);  // 8/3 s rounded up
  CHECK(transmission_time(1000000000ull, 1000000).ns == 8000000000000);  // 1 GB at 1 Mbit/s
}
