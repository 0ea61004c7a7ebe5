// Host tests for the firmware logic (rb_*.cpp), with plain asserts and no framework:
//   g++ -std=c++11 -I../railbird_sensors/src test_firmware.cpp ../railbird_sensors/src/*.cpp
//   ./a.out            runs the tests, exit status = number of failures
//   ./a.out --encode   reads message specs on stdin, prints the framed lines (the pytest
//                      test compares them byte for byte with the Python encoder):
//                        H seq t_us firmware pockets boot_id
//                        D seq t_us pocket
//                        B seq t_us boot_id stuck_mask
//                        F seq t_us pocket code(0 stuck, 1 clear, 2 lost)
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "rb_board.h"
#include "rb_clock64.h"
#include "rb_debounce.h"
#include "rb_protocol.h"

namespace {

int failures = 0;

#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      std::fprintf(stderr, "%s:%d: CHECK(%s)\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                    \
    }                                                                \
  } while (0)

std::string drain(rb::Board& board) {
  std::string out;
  uint8_t buf[7];  // odd size: lines leave the board in pieces, as over a UART
  size_t n;
  while ((n = board.take(buf, sizeof buf)) > 0) out.append(reinterpret_cast<char*>(buf), n);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0, end;
  while ((end = text.find('\n', start)) != std::string::npos) {
    lines.push_back(text.substr(start, end - start + 1));
    start = end + 1;
  }
  return lines;
}

void test_crc16_check_value() {
  const char* check = "123456789";
  CHECK(rb::crc16(reinterpret_cast<const uint8_t*>(check), 9) == 0x29B1);
  CHECK(rb::crc16(nullptr, 0) == 0xFFFF);
}

void test_formatting() {
  char line[rb::kMaxLine];
  size_t n = rb::format_drop(line, sizeof line, 7, 123456, 2);
  CHECK(std::string(line, n) == "$D,7,123456,2*4085\n");
  CHECK(line[0] == '$' && line[n - 1] == '\n' && line[n - 6] == '*');
  n = rb::format_heartbeat(line, sizeof line, 4294967295UL, 18446744073709551615ULL, 0xDEADBEEF,
                           0x21);
  CHECK(std::string(line, n).find("$B,4294967295,18446744073709551615,DEADBEEF,21*") == 0);
  n = rb::format_fault(line, sizeof line, 1, 0, 5, rb::kFaultStuck);
  CHECK(std::string(line, n).find("$F,1,0,5,STUCK*") == 0);
  n = rb::format_hello(line, sizeof line, 0, 42, "1.0.0", 6, 0xA);
  CHECK(std::string(line, n).find("$H,0,42,1,1.0.0,6,0000000A*") == 0);
  // a line never overruns a short buffer: it is refused whole
  char tiny[10];
  CHECK(rb::format_drop(tiny, sizeof tiny, 7, 123456, 2) == 0);
}

void test_clock64_extends_across_wraps() {
  rb::Clock64 clock;
  CHECK(clock.extend(10) == 10);
  CHECK(clock.extend(4294967290UL) == 4294967290ULL);
  CHECK(clock.extend(5) == (1ULL << 32) + 5);
  CHECK(clock.extend(4000000000UL) == (1ULL << 32) + 4000000000ULL);
  CHECK(clock.extend(1) == (2ULL << 32) + 1);
}

void test_debounce_counts_one_drop_through_bounces() {
  rb::PocketDebouncer p;
  const rb::DebounceConfig& c = rb::kDefaultDebounce;
  int drops = 0;
  uint64_t when = 0;
  // a 50 ms beam break starting at t=1000 us, with contact bounce at both ends
  for (uint64_t t = 0; t < 200000; t += 50) {
    bool active = t >= 1000 && t < 51000;
    if ((t >= 1100 && t < 1200) || (t >= 50500 && t < 50600)) active = !active;
    if (t >= 52000 && t < 52100) active = true;  // rattle after release
    if (p.update(active, t, c) == rb::kDropEvent) {
      ++drops;
      when = p.edge_us();
    }
  }
  CHECK(drops == 1);
  CHECK(when == 1000);  // stamped at the first edge, not when confirmed
}

void test_debounce_ignores_short_glitches() {
  rb::PocketDebouncer p;
  int drops = 0;
  for (uint64_t t = 0; t < 100000; t += 50) {
    const bool active = (t % 10000) < 500;  // 0.5 ms spikes, shorter than confirm_us
    if (p.update(active, t, rb::kDefaultDebounce) == rb::kDropEvent) ++drops;
  }
  CHECK(drops == 0);
}

void test_debounce_two_balls_are_two_drops() {
  rb::PocketDebouncer p;
  int drops = 0;
  for (uint64_t t = 0; t < 400000; t += 100) {
    const bool active = (t >= 10000 && t < 60000) || (t >= 150000 && t < 200000);
    if (p.update(active, t, rb::kDefaultDebounce) == rb::kDropEvent) ++drops;
  }
  CHECK(drops == 2);
}

void test_debounce_stuck_then_clear() {
  rb::PocketDebouncer p;
  int drops = 0, stuck = 0, clear = 0;
  for (uint64_t t = 0; t < 4000000; t += 1000) {
    const bool active = t >= 1000 && t < 3000000;
    switch (p.update(active, t, rb::kDefaultDebounce)) {
      case rb::kDropEvent: ++drops; break;
      case rb::kStuckEvent: ++stuck; CHECK(t >= 2001000); break;
      case rb::kClearEvent: ++clear; CHECK(t >= 3020000); break;
      default: break;
    }
  }
  CHECK(drops == 1 && stuck == 1 && clear == 1);
}

void test_board_emits_hello_drops_heartbeats_in_sequence() {
  rb::Board board;
  board.begin(0xCAFE, "1.0.0", 6, 100);
  std::string out;
  for (uint32_t t = 100; t < 2500000; t += 100) {
    const uint8_t mask = (t >= 500000 && t < 540000) ? 0x08 : 0;  // pocket 3
    board.poll(t, mask);
    out += drain(board);
  }
  const std::vector<std::string> lines = lines_of(out);
  CHECK(lines.size() == 4);  // hello, drop, heartbeat at 1 s and 2 s
  if (lines.size() != 4) return;
  CHECK(lines[0].find("$H,0,100,1,1.0.0,6,0000CAFE*") == 0);
  CHECK(lines[1].find("$D,1,500000,3*") == 0);
  CHECK(lines[2].find("$B,2,1000100,0000CAFE,00*") == 0);
  CHECK(lines[3].find("$B,3,2000100,0000CAFE,00*") == 0);
}

void test_board_answers_a_hello_request() {
  rb::Board board;
  board.begin(1, "1.0.0", 6, 0);
  drain(board);
  board.receive('?');
  board.poll(10, 0);
  CHECK(drain(board).find("$H,1,10,1,1.0.0,6,00000001*") == 0);
}

void test_board_reports_lost_drops_when_the_link_stalls() {
  rb::Board board;
  board.begin(1, "1.0.0", 6, 0);
  // nobody drains: 40 drops on pocket 0 fill the output buffer and the event queue
  uint32_t t = 0;
  for (int ball = 0; ball < 40; ++ball) {
    for (int i = 0; i < 100; ++i, t += 1000) board.poll(t, i < 30 ? 0x01 : 0);
  }
  const std::string out = drain(board) + [&] {
    std::string rest;
    for (int i = 0; i < 100; ++i, t += 1000) {
      board.poll(t, 0);
      rest += drain(board);
    }
    return rest;
  }();
  CHECK(out.find(",0,LOST*") != std::string::npos);
  // every line that did go out is whole and in sequence
  const std::vector<std::string> lines = lines_of(out);
  for (size_t i = 0; i < lines.size(); ++i) {
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, ",%u,", static_cast<unsigned>(i));
    CHECK(lines[i][0] == '$' && lines[i].find(prefix) == 2);
  }
}

void test_board_timestamps_survive_micros_wrap() {
  rb::Board board;
  const uint32_t start = 4294967295UL - 300000UL;
  board.begin(1, "1.0.0", 6, start);
  std::string out;
  uint32_t t = start;
  for (int i = 0; i < 6000; ++i, t += 100) {
    board.poll(t, (i >= 4000 && i < 4400) ? 0x20 : 0);
    out += drain(board);
  }
  const std::string expect = "$D,1," + std::to_string(static_cast<uint64_t>(start) + 400000ULL);
  CHECK(out.find(expect + ",5*") != std::string::npos);
}

void test_board_reports_a_stuck_sensor_in_faults_and_heartbeats() {
  rb::Board board;
  board.begin(9, "1.0.0", 6, 0);
  std::string out;
  for (uint32_t t = 0; t < 4000000; t += 500) {
    board.poll(t, (t >= 100000 && t < 3000000) ? 0x02 : 0);  // pocket 1 blocked 2.9 s
    out += drain(board);
  }
  const std::vector<std::string> lines = lines_of(out);
  // stuck 2 s after the first edge, in every heartbeat while stuck, clear 20 ms after release
  CHECK(lines.size() == 7);
  if (lines.size() != 7) return;
  CHECK(lines[1].find("$D,1,100000,1*") == 0);
  CHECK(lines[2].find("$B,2,1000000,00000009,00*") == 0);
  CHECK(lines[3].find("$B,3,2000000,00000009,00*") == 0);
  CHECK(lines[4].find("$F,4,2100000,1,STUCK*") == 0);
  CHECK(lines[5].find("$B,5,3000000,00000009,02*") == 0);
  CHECK(lines[6].find("$F,6,3020000,1,CLEAR*") == 0);
}

int run_encode() {
  char kind;
  char line[rb::kMaxLine];
  while (std::scanf(" %c", &kind) == 1) {
    unsigned long seq = 0;
    unsigned long long t = 0;
    size_t n = 0;
    if (kind == 'H') {
      char fw[32];
      unsigned pockets;
      unsigned long boot;
      if (std::scanf("%lu %llu %31s %u %lu", &seq, &t, fw, &pockets, &boot) != 5) return 2;
      n = rb::format_hello(line, sizeof line, seq, t, fw, pockets, boot);
      std::fwrite(line, 1, n, stdout);  // fw must outlive the call: write before the loop ends
      continue;
    } else if (kind == 'D') {
      unsigned pocket;
      if (std::scanf("%lu %llu %u", &seq, &t, &pocket) != 3) return 2;
      n = rb::format_drop(line, sizeof line, seq, t, pocket);
    } else if (kind == 'B') {
      unsigned long boot;
      unsigned mask;
      if (std::scanf("%lu %llu %lu %u", &seq, &t, &boot, &mask) != 4) return 2;
      n = rb::format_heartbeat(line, sizeof line, seq, t, boot, mask);
    } else if (kind == 'F') {
      unsigned pocket, code;
      if (std::scanf("%lu %llu %u %u", &seq, &t, &pocket, &code) != 4) return 2;
      n = rb::format_fault(line, sizeof line, seq, t, pocket, static_cast<rb::FaultCode>(code));
    } else {
      return 2;
    }
    std::fwrite(line, 1, n, stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--encode") == 0) return run_encode();
  test_crc16_check_value();
  test_formatting();
  test_clock64_extends_across_wraps();
  test_debounce_counts_one_drop_through_bounces();
  test_debounce_ignores_short_glitches();
  test_debounce_two_balls_are_two_drops();
  test_debounce_stuck_then_clear();
  test_board_emits_hello_drops_heartbeats_in_sequence();
  test_board_answers_a_hello_request();
  test_board_reports_lost_drops_when_the_link_stalls();
  test_board_timestamps_survive_micros_wrap();
  test_board_reports_a_stuck_sensor_in_faults_and_heartbeats();
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
  } else {
    std::printf("all firmware host tests passed\n");
  }
  return failures;
}
