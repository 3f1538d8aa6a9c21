// The question server on a real pseudo-terminal: requests sent over its
// real socket by another process, answers typed on the terminal's master.

#include "supervisor/ask_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <poll.h>
#include <pty.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

namespace klaunch {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kWritePrompt[] = "for the rest of the run? [y/N] ";

class AskServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/klaunch-ask-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    int slave = -1;
    ASSERT_EQ(openpty(&master_, &slave, nullptr, nullptr, nullptr), 0);
    AskServer::Options o;
    o.socket_path = dir_ + "/ask.sock";
    o.programs = {"curl"};
    o.tty = slave;
    absl::StatusOr<std::unique_ptr<AskServer>> s =
        AskServer::Start(std::move(o));
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = *std::move(s);
  }
  void TearDown() override {
    server_.reset();
    close(master_);
    unlink((dir_ + "/ask.sock").c_str());
    rmdir(dir_.c_str());
  }

  struct Exchange {
    char reply = 0;      // 'y', 'n', 'r' (refused unasked); 0 for nothing
    std::string screen;  // what the terminal showed
    bool asked = false;  // a prompt appeared (and was answered)
    pid_t sender = 0;
  };

  // Sends `request` from a child process and answers `answer` at the first
  // prompt the terminal shows. `before`, when not empty, is typed at the
  // terminal before the request is sent.
  Exchange Send(const std::string& request, const std::string& answer,
                const std::string& before = "") {
    Exchange e;
    if (!before.empty()) {
      EXPECT_EQ(write(master_, before.data(), before.size()),
                static_cast<ssize_t>(before.size()));
    }
    int out[2];
    EXPECT_EQ(pipe(out), 0);
    const pid_t child = fork();
    if (child == 0) {
      close(out[0]);
      char reply = 0;
      const int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/ask.sock",
                    dir_.c_str());
      if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
          send(fd, request.data(), request.size(), 0) >= 0 &&
          recv(fd, &reply, 1, 0) != 1) {
        reply = 0;
      }
      ssize_t ignored = write(out[1], &reply, 1);
      (void)ignored;
      _exit(0);
    }
    close(out[1]);
    e.sender = child;
    while (true) {
      pollfd p[2] = {{master_, POLLIN, 0}, {out[0], POLLIN, 0}};
      if (poll(p, 2, 30000) <= 0) break;  // a hang fails below, not here
      if (p[0].revents & POLLIN) {
        char buf[4096];
        const ssize_t n = read(master_, buf, sizeof(buf));
        if (n > 0) e.screen.append(buf, n);
        if (!e.asked && e.screen.find("? [") != std::string::npos) {
          e.asked = true;
          const std::string typed = answer + "\r";
          EXPECT_EQ(write(master_, typed.data(), typed.size()),
                    static_cast<ssize_t>(typed.size()));
        }
        continue;
      }
      if (p[1].revents) {
        if (read(out[0], &e.reply, 1) != 1) e.reply = 0;
        break;
      }
    }
    close(out[0]);
    waitpid(child, nullptr, 0);
    return e;
  }

  static std::string OurExe() {
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe));
    return n > 0 ? std::string(exe, n) : "";
  }

  std::string dir_;
  int master_ = -1;
  std::unique_ptr<AskServer> server_;
};

const char kWrite[] =
    "kind=write\nop=open\nexe=/usr/bin/git\nfile=/home/me/out\nchain=\n";

TEST_F(AskServerTest, TheAskerIsTheProcessAtTheOtherEndNotWhatItSays) {
  Exchange e = Send(kWrite, "n");
  EXPECT_TRUE(e.asked);
  EXPECT_EQ(e.reply, 'n');
  // The sender's own pid and executable (this test, forked), not the
  // request's /usr/bin/git.
  EXPECT_THAT(e.screen, HasSubstr("pid " + std::to_string(e.sender) + " (" +
                                  OurExe() + ") wants to write /home/me/out"));
  EXPECT_THAT(e.screen, Not(HasSubstr("git")));
}

TEST_F(AskServerTest, AYesAdmitsThePathWithoutAskingAgain) {
  Exchange first = Send(kWrite, "y");
  EXPECT_TRUE(first.asked);
  EXPECT_EQ(first.reply, 'y');
  Exchange again = Send(kWrite, "n");
  EXPECT_FALSE(again.asked) << again.screen;
  EXPECT_EQ(again.reply, 'y');
}

TEST_F(AskServerTest, AYesHoldsForTheChainOfSectionsItWasGivenUnder) {
  Exchange agent = Send(kWrite, "y");
  EXPECT_EQ(agent.reply, 'y');
  const std::string in_curl =
      "kind=write\nop=open\nexe=/x\nfile=/home/me/out\nchain=0\n";
  Exchange curl = Send(in_curl, "n");
  EXPECT_TRUE(curl.asked);
  EXPECT_THAT(curl.screen, HasSubstr(") in programs.\"curl\" wants to write"));
  EXPECT_EQ(curl.reply, 'n');
  // A chain naming a section the policy lacks is no question.
  Exchange unknown =
      Send("kind=write\nop=open\nexe=/x\nfile=/home/me/out\nchain=1\n", "y");
  EXPECT_FALSE(unknown.asked);
  EXPECT_EQ(unknown.reply, 'r');
}

TEST_F(AskServerTest, AForgedOrMalformedRequestIsRefusedWithoutAsking) {
  const std::string write = kWrite;
  const std::vector<std::string> requests = {
      write + "pid=1\n",                          // a key it does not know
      write + "file=/etc/fine\n",                 // a repeated key
      "kind=write\nop=open\nexe=/x\nfile=/a\n",   // no chain
      write.substr(0, write.size() - 1),          // not one whole line
      "op=execve\nexe=/x\nfile=/a\ncommand=a\n",  // no chain
  };
  for (const std::string& request : requests) {
    Exchange e = Send(request, "y");
    EXPECT_FALSE(e.asked) << request << "\n" << e.screen;
    EXPECT_EQ(e.reply, 'r') << request;
  }
}

TEST_F(AskServerTest, ARequestLongerThanTheLimitIsRefusedWithoutAsking) {
  // Its first kAskRequestMax bytes are a whole, well-formed question: read
  // truncated, it would be asked as though that were all of it.
  std::string request = "op=execve\nexe=/x\nfile=/usr/bin/true\ncommand=true ";
  const std::string tail = "\nchain=\n";
  request.append(kAskRequestMax - request.size() - tail.size(), 'a');
  request += tail;
  ASSERT_EQ(request.size(), kAskRequestMax);
  ASSERT_TRUE(ParseAskRequest(request).ok());
  Exchange whole = Send(request, "n");
  EXPECT_TRUE(whole.asked);  // the limit itself is a question
  request += "file=/etc/hidden\n";
  Exchange longer = Send(request, "y");
  EXPECT_FALSE(longer.asked) << longer.screen.substr(0, 200);
  EXPECT_EQ(longer.reply, 'r');
}

TEST_F(AskServerTest, WhatWasTypedBeforeTheQuestionDoesNotAnswerIt) {
  Exchange e = Send(kWrite, "n", "y\r");
  EXPECT_TRUE(e.asked);
  EXPECT_EQ(e.reply, 'n');
}

TEST_F(AskServerTest, WhatAProgramNamedIsShownEscaped) {
  Exchange e = Send(
      "kind=write\nop=open\x1b[2J\nexe=/x\nfile=/home/me/\xc2\x9b"
      "31mout\xe2\x80\xae\nchain=\n",
      "n");
  EXPECT_TRUE(e.asked);
  EXPECT_THAT(
      e.screen,
      HasSubstr("/home/me/\\xc2\\x9b31mout\\xe2\\x80\\xae (open\\x1b[2J)"));
  EXPECT_THAT(e.screen, Not(HasSubstr("\x1b")));
  EXPECT_THAT(e.screen, Not(HasSubstr("\xc2\x9b")));
}

}  // namespace
}  // namespace klaunch
