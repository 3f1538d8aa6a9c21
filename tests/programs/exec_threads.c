/* Eight threads fork+execv and posix_spawn `touch` of allowed (WS/ok-*) and
 * denied (WS/no-*) markers at once, WS = argv[1]; prints the wrong decisions.
 * For ShimExec.EightThreadsForkingAndExecingAtOnceGetEveryDecisionRight. */

#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
extern char** environ;
#define THREADS 8
#define ROUNDS 6
static const char* ws;
static pthread_barrier_t barrier;
static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char* what, int t, int i, int status) {
  pthread_mutex_lock(&lock);
  printf("mismatch %s thread %d round %d status %d\n", what, t, i, status);
  ++failures;
  pthread_mutex_unlock(&lock);
}

static void* run(void* arg) {
  int t = (int)(long)arg;
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < ROUNDS; ++i) {
    for (int allowed = 0; allowed < 2; ++allowed) {
      char marker[4200];
      snprintf(marker, sizeof(marker), "%s/%s-%d-%d", ws, allowed ? "ok" : "no",
               t, i);
      char* args[] = {"touch", marker, NULL};
      pid_t pid = fork();
      if (pid == 0) {
        execv("/usr/bin/touch", args);
        _exit(errno == EACCES ? 77 : 78);
      }
      int status = -1;
      if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        fail("fork/wait", t, i, status);
        continue;
      }
      int want = allowed ? 0 : 77;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != want) {
        fail(allowed ? "allowed" : "denied", t, i, status);
      }
      /* and once through posix_spawn from the same threads */
      snprintf(marker, sizeof(marker), "%s/%s-spawn-%d-%d", ws,
               allowed ? "ok" : "no", t, i);
      int rc = posix_spawn(&pid, "/usr/bin/touch", NULL, NULL, args, environ);
      if (allowed) {
        if (rc != 0 || waitpid(pid, &status, 0) != pid || status != 0) {
          fail("spawn allowed", t, i, rc);
        }
      } else if (rc != EACCES) {
        if (rc == 0) waitpid(pid, &status, 0);
        fail("spawn denied", t, i, rc);
      }
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  ws = argv[1];
  pthread_t threads[THREADS];
  pthread_barrier_init(&barrier, NULL, THREADS);
  for (long t = 0; t < THREADS; ++t) {
    pthread_create(&threads[t], NULL, run, (void*)t);
  }
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  printf("failures %d\n", failures);
  return failures ? 1 : 0;
}
