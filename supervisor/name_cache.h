// The host names of `network.allow`, resolved by klaunch itself, so that the
// seccomp supervisor can judge a connect by name for a program whose own
// resolution it never sees (a static binary, a Go program, raw syscalls).
//
//   NameCache names(engine);                    // resolves every name now
//   for (const std::string& n : names.NamesFor(ip)) {
//     if (engine.CheckConnect(ip, port, n).allowed()) ...
//   }
//
// Owns: the list of literal names (rules naming one host, no `*` or `**`:
// a glob names no host to ask about, so glob rules hold only where the shim
// sees the program's getaddrinfo), and a memory of which address each name
// resolved to. It does not judge (the Engine does) and it does not know how
// the program resolved the name: a program that asks another DNS server,
// or reads its own hosts file, may reach an address klaunch never saw.
//
// getaddrinfo gives no TTL, so an answer is kept for a fixed 300 s after it
// was last seen. Answers of round-robin DNS vary from one query to the next,
// and the program may have got an address klaunch's latest query did not
// return: keeping recent answers admits those. On a miss every name is
// resolved again (at most once a second, so a program connecting to many
// unknown addresses cannot turn klaunch into a resolver loop) and the
// address looked up once more.
//
// Thread-safe: the supervisor's workers share one instance.

#ifndef KLAUNCH_SUPERVISOR_NAME_CACHE_H_
#define KLAUNCH_SUPERVISOR_NAME_CACHE_H_

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/engine.h"
#include "core/network.h"
#include "core/policy.h"

namespace klaunch {

// The literal host names of `network.allow`, in policy order, each once.
std::vector<std::string> LiteralHostNames(const Policy& policy);

// The addresses getaddrinfo (AF_UNSPEC, SOCK_STREAM) gives for `name`;
// empty when it does not resolve.
std::vector<IpAddress> ResolveHostName(const std::string& name);

class NameCache {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  using Resolver = std::function<std::vector<IpAddress>(const std::string&)>;

  // How long an answer counts after it was last seen.
  static constexpr std::chrono::seconds kKeep{300};
  // The shortest time between two resolutions of every name.
  static constexpr std::chrono::seconds kMinRefresh{1};

  // The literal names of the engine's policy, resolved with getaddrinfo
  // before this returns (so a run's first connect finds them).
  explicit NameCache(const Engine& engine);
  // The same with the names, resolver and clock given (tests).
  NameCache(std::vector<std::string> names, Resolver resolve, Clock now);

  NameCache(const NameCache&) = delete;
  NameCache& operator=(const NameCache&) = delete;

  // The policy names that resolved to `address` within kKeep, in policy
  // order; may resolve every name again first (see above). Blocks while
  // another thread resolves.
  std::vector<std::string> NamesFor(const IpAddress& address);

  // True when `name` (a name the shim says the program resolved to reach
  // `address`) resolves to `address` for klaunch too: it is resolved now
  // unless klaunch saw that answer within kKeep (at most once a second per
  // name, and for at most kMaxVouched names a run), so a program cannot
  // make a host rule admit an address by naming the host.
  bool Vouches(const std::string& name, const IpAddress& address);
  static constexpr size_t kMaxVouched = 4096;

  const std::vector<std::string>& names() const { return names_; }

 private:
  using Key = std::pair<bool, std::array<uint8_t, 16>>;
  using Time = std::chrono::steady_clock::time_point;

  static Key KeyOf(const IpAddress& address);
  std::vector<std::string> LookLocked(const Key& key, Time now);
  // Resolves every name with `lock` released, then records the answers.
  void RefreshLocked(std::unique_lock<std::mutex>& lock);

  const std::vector<std::string> names_;
  std::map<std::string, Time> vouched_;  // guarded: when each was resolved
  const Resolver resolve_;
  const Clock now_;

  std::mutex mu_;
  std::condition_variable refreshed_;
  bool refreshing_ = false;  // guarded by mu_
  Time last_refresh_{};      // guarded by mu_
  // Address -> name -> when an answer last held it. Guarded by mu_.
  std::map<Key, std::map<std::string, Time>> seen_;
};

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_NAME_CACHE_H_
