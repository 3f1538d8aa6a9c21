// Names a program reaches without asking a resolver: `localhost` and every
// name below it (RFC 6761: curl, Go and others answer them themselves,
// never calling getaddrinfo), and the names /etc/hosts binds (which a static
// program reads itself). A host rule naming one must admit whoever
// connects, whether or not the shim saw a lookup, so the loader adds each
// such name's addresses to network.allow beside the rule (loader.cc).
//
// This module owns reading the hosts file's text; it reads no file itself.

#ifndef KLAUNCH_CORE_STATIC_NAMES_H_
#define KLAUNCH_CORE_STATIC_NAMES_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "core/network.h"

namespace klaunch {

// The addresses `name` (lower case, no trailing dot) is bound to without a
// lookup: 127.0.0.1 and ::1 for localhost and *.localhost, then each
// address a line of `hosts` (the text of /etc/hosts) gives it, in order,
// once each. Empty for every other name.
std::vector<IpAddress> StaticAddresses(absl::string_view name,
                                       absl::string_view hosts);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_STATIC_NAMES_H_
