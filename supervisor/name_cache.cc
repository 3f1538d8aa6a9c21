#include "supervisor/name_cache.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "absl/status/statusor.h"

namespace klaunch {

std::vector<std::string> LiteralHostNames(const Policy& policy) {
  std::vector<std::string> out;
  for (const Entry& entry : policy.network.allow) {
    absl::StatusOr<NetworkRule> rule = NetworkRule::Parse(entry.value);
    if (!rule.ok()) continue;  // the Engine refused the policy already
    std::string name = rule->literal_host();
    if (name.empty() || std::find(out.begin(), out.end(), name) != out.end()) {
      continue;
    }
    out.push_back(std::move(name));
  }
  return out;
}

std::vector<IpAddress> ResolveHostName(const std::string& name) {
  addrinfo hints;
  std::memset(&hints, 0, sizeof(hints));
  // Every family, and no AI_ADDRCONFIG: the program may connect over a
  // family klaunch has no address of its own in.
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::vector<IpAddress> out;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &res) != 0) return out;
  for (const addrinfo* a = res; a != nullptr; a = a->ai_next) {
    IpAddress ip;
    if (a->ai_family == AF_INET && a->ai_addrlen >= sizeof(sockaddr_in)) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      ip = IpAddress::FromBytes(
          false, reinterpret_cast<const uint8_t*>(&in->sin_addr));
    } else if (a->ai_family == AF_INET6 &&
               a->ai_addrlen >= sizeof(sockaddr_in6)) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      ip = IpAddress::FromBytes(
          true, reinterpret_cast<const uint8_t*>(&in6->sin6_addr));
    } else {
      continue;
    }
    if (std::find(out.begin(), out.end(), ip) == out.end()) out.push_back(ip);
  }
  freeaddrinfo(res);
  return out;
}

NameCache::NameCache(const Engine& engine)
    : NameCache(LiteralHostNames(engine.policy()), ResolveHostName,
                [] { return std::chrono::steady_clock::now(); }) {}

NameCache::NameCache(std::vector<std::string> names, Resolver resolve,
                     Clock now)
    : names_(std::move(names)),
      resolve_(std::move(resolve)),
      now_(std::move(now)) {
  if (names_.empty()) return;
  std::unique_lock<std::mutex> lock(mu_);
  RefreshLocked(lock);
}

NameCache::Key NameCache::KeyOf(const IpAddress& address) {
  const IpAddress a = address.Unmapped();
  Key key{a.v6, {}};
  std::memcpy(key.second.data(), a.bytes.data(), a.v6 ? 16 : 4);
  return key;
}

std::vector<std::string> NameCache::LookLocked(const Key& key, Time now) {
  std::vector<std::string> out;
  auto it = seen_.find(key);
  if (it == seen_.end()) return out;
  std::map<std::string, Time>& by_name = it->second;
  for (auto n = by_name.begin(); n != by_name.end();) {
    n = now - n->second >= kKeep ? by_name.erase(n) : std::next(n);
  }
  if (by_name.empty()) {
    seen_.erase(it);
    return out;
  }
  // In policy order, so the first rule tried is the first one written.
  for (const std::string& name : names_) {
    if (by_name.count(name) != 0) out.push_back(name);
  }
  return out;
}

void NameCache::RefreshLocked(std::unique_lock<std::mutex>& lock) {
  refreshing_ = true;
  last_refresh_ = now_();
  // Unlocked: a resolver can take seconds (a DNS timeout), and hits on
  // other addresses must not wait for it.
  lock.unlock();
  std::vector<std::pair<std::string, std::vector<IpAddress>>> answers;
  for (const std::string& name : names_) {
    answers.emplace_back(name, resolve_(name));
  }
  const Time now = now_();
  lock.lock();
  for (const auto& [name, addresses] : answers) {
    for (const IpAddress& a : addresses) seen_[KeyOf(a)][name] = now;
  }
  // Forget what expired, so the map holds only recent answers however long
  // the run.
  for (auto it = seen_.begin(); it != seen_.end();) {
    std::map<std::string, Time>& by_name = it->second;
    for (auto n = by_name.begin(); n != by_name.end();) {
      n = now - n->second >= kKeep ? by_name.erase(n) : std::next(n);
    }
    it = by_name.empty() ? seen_.erase(it) : std::next(it);
  }
  refreshing_ = false;
  refreshed_.notify_all();
}

std::vector<std::string> NameCache::NamesFor(const IpAddress& address) {
  if (names_.empty()) return {};
  const Key key = KeyOf(address);
  std::unique_lock<std::mutex> lock(mu_);
  std::vector<std::string> found = LookLocked(key, now_());
  if (!found.empty()) return found;
  if (refreshing_) {
    // Another thread is asking already: its answers are as fresh as ours
    // would be.
    refreshed_.wait(lock, [this] { return !refreshing_; });
    return LookLocked(key, now_());
  }
  if (now_() - last_refresh_ < kMinRefresh) return found;
  RefreshLocked(lock);
  return LookLocked(key, now_());
}

bool NameCache::Vouches(const std::string& name, const IpAddress& address) {
  if (name.empty() || name.size() > 253) return false;
  const Key key = KeyOf(address);
  std::unique_lock<std::mutex> lock(mu_);
  const auto fresh = [&] {
    auto it = seen_.find(key);
    if (it == seen_.end()) return false;
    auto n = it->second.find(name);
    return n != it->second.end() && now_() - n->second < kKeep;
  };
  if (fresh()) return true;
  auto last = vouched_.find(name);
  if (last != vouched_.end() && now_() - last->second < kMinRefresh) {
    return false;
  }
  if (last == vouched_.end() && vouched_.size() >= kMaxVouched) return false;
  vouched_[name] = now_();
  // Unlocked, as in RefreshLocked: a DNS timeout must not hold up others.
  lock.unlock();
  const std::vector<IpAddress> answers = resolve_(name);
  lock.lock();
  const Time now = now_();
  for (const IpAddress& a : answers) seen_[KeyOf(a)][name] = now;
  return fresh();
}

}  // namespace klaunch
