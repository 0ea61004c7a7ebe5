// railbird pocket-sensor line protocol, firmware side (see hardware/README.md).
// Plain C++ without the standard library so it builds with avr-g++ and on the host.
#ifndef RB_PROTOCOL_H
#define RB_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

namespace rb {

const uint8_t kProtocolVersion = 1;
// Longest line, '$' to '\n' included (the host drops anything longer).
const size_t kMaxLine = 128;

enum FaultCode : uint8_t { kFaultStuck = 0, kFaultClear = 1, kFaultLost = 2 };

// CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF; crc16("123456789") == 0x29B1.
uint16_t crc16(const uint8_t* data, size_t len);

// Each formatter writes one complete line ("$...*CRC\n") into out (capacity cap, at least
// kMaxLine) and returns its length, or 0 if it does not fit. No terminating NUL is counted.
size_t format_hello(char* out, size_t cap, uint32_t seq, uint64_t t_us, const char* firmware,
                    uint8_t pockets, uint32_t boot_id);
size_t format_drop(char* out, size_t cap, uint32_t seq, uint64_t t_us, uint8_t pocket);
size_t format_heartbeat(char* out, size_t cap, uint32_t seq, uint64_t t_us, uint32_t boot_id,
                        uint8_t stuck_mask);
size_t format_fault(char* out, size_t cap, uint32_t seq, uint64_t t_us, uint8_t pocket,
                    FaultCode code);

}  // namespace rb

#endif
