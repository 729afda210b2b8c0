#include <vector>

struct LogEvent {
    int host;
    int code;
    long long timestamp;
};

// The first event of each (host, code) pair, in log order: the "new problems" view of the
// log viewer, which hides repeats of an error already shown for that host.
std::vector<LogEvent> first_events(const std::vector<LogEvent>& log) {
    std::vector<LogEvent> shown;
    for (const LogEvent& e : log) {
        bool repeat = false;
        for (const LogEvent& s : shown) {
            if (s.host == e.host && s.code == e.code) {
                repeat = true;
                break;
            }
        }
        if (!repeat) shown.push_back(e);
    }
    return shown;
}
