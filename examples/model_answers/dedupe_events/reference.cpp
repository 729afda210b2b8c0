#include <cstdint>
#include <unordered_set>
#include <vector>

struct LogEvent {
    int host;
    int code;
    long long timestamp;
};

// Both 32-bit fields packed into one 64-bit key.
static inline std::uint64_t event_key(const LogEvent& e) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(e.host)) << 32) |
           static_cast<std::uint32_t>(e.code);
}

// The first event of each (host, code) pair, in log order: the "new problems" view of the
// log viewer, which hides repeats of an error already shown for that host.
std::vector<LogEvent> first_events(const std::vector<LogEvent>& log) {
    std::unordered_set<std::uint64_t> seen;
    seen.reserve(log.size());
    std::vector<LogEvent> shown;
    for (const LogEvent& e : log) {
        if (seen.insert(event_key(e)).second) shown.push_back(e);
    }
    return shown;
}
