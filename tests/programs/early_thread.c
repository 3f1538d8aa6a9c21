/* A program that starts a thread before the shim's constructor runs: in the
 * constructor of a library it links (built with -DEARLY_LIB -shared), whose
 * constructors run before those of the libraries LD_PRELOAD adds. main
 * (built without, linked with that library and with attacker.c compiled
 * with -Dmain=attacker_main) runs the attacker in that thread, which
 * therefore holds none of the Landlock rulesets the shim stacks on the
 * thread that runs its constructor. */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

typedef int (*job_fn)(int, char**);

#ifdef EARLY_LIB

static int g_to_thread[2], g_from_thread[2];

struct job {
  job_fn fn;
  int argc;
  char** argv;
};

static void* serve(void* unused) {
  (void)unused;
  struct job j;
  if (read(g_to_thread[0], &j, sizeof(j)) != sizeof(j)) return NULL;
  int r = j.fn(j.argc, j.argv);
  if (write(g_from_thread[1], &r, sizeof(r)) != sizeof(r)) return NULL;
  return NULL;
}

__attribute__((constructor)) static void start_early_thread(void) {
  pthread_t t;
  if (pipe(g_to_thread) != 0 || pipe(g_from_thread) != 0) return;
  pthread_create(&t, NULL, serve, NULL);
}

/* Runs fn in the thread the constructor started; its result. */
int early_run(job_fn fn, int argc, char** argv) {
  struct job j = {fn, argc, argv};
  int r = 125;
  if (write(g_to_thread[1], &j, sizeof(j)) != sizeof(j)) return 125;
  if (read(g_from_thread[0], &r, sizeof(r)) != sizeof(r)) return 125;
  return r;
}

#else

/* The build renames attacker.c's main for both files: this one is main. */
#undef main
int early_run(job_fn fn, int argc, char** argv);
int attacker_main(int argc, char** argv);

int main(int argc, char** argv) { return early_run(attacker_main, argc, argv); }

#endif
