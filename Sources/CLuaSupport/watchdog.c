// Why this file: a simulation's hot loop runs Lua with no count hook (the hook taxes
// every VM instruction two- to threefold). A watchdog thread stops a step that makes
// no progress by signalling the thread running it; the handler installs the hook,
// which then raises - lua_sethook is safe in a signal handler, as lua.c's Ctrl-C
// handling relies on. Signal handlers and sigset macros are C.
#include "CLuaSupport.h"
#include <string.h>

void clua_install_hook(lua_State *L, int every);

/* Declared here: glibc's header shows it only under _GNU_SOURCE. */
extern int pthread_sigqueue(pthread_t thread, int sig, const union sigval value);

// Why C: a signal handler; the context rides in the signal's value.
static void clua_watchdog_signal(int sig, siginfo_t *info, void *unused) {
    (void)sig; (void)unused;
    clua_context *c = (clua_context *)info->si_value.sival_ptr;
    if (c == NULL || !__atomic_load_n(&c->watched, __ATOMIC_SEQ_CST)) return;
    c->stalled = 1;
    c->interrupt_requested = 1;
    clua_install_hook(c->main_thread, 1);
}

void clua_watchdog_install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = clua_watchdog_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(CLUA_WATCHDOG_SIGNAL, &action, NULL);
}

// Run on a watched thread: thread pools (libdispatch's) block signals on their
// threads, and a blocked signal would stay pending forever.
void clua_watchdog_unblock(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, CLUA_WATCHDOG_SIGNAL);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int clua_watchdog_stop(pthread_t thread, clua_context *c) {
    union sigval value;
    value.sival_ptr = c;
    return pthread_sigqueue(thread, CLUA_WATCHDOG_SIGNAL, value);
}

void clua_watch_begin(lua_State *L, int64_t budget) {
    clua_context *c = clua_ctx(L);
    c->stalled = 0;
    c->interrupt_requested = 0;
    c->slow_step = 0;
    /* Charged work still counts; instructions are bounded by each step's time. */
    clua_arm_budget(L, budget, 0);
    c->step_started_ns = clua_now_ns();
    __atomic_store_n(&c->watched, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&c->progress, 1, __ATOMIC_RELAXED);
}

int64_t clua_watch_allowance(lua_State *L) {
    clua_context *c = clua_ctx(L);
    uint64_t elapsed = clua_now_ns() - c->step_started_ns;
    return c->budget_remaining - (int64_t)elapsed * CLUA_FASTEST_INSTRUCTIONS_PER_NS - CLUA_STEP_SLACK;
}

int clua_watch_end(lua_State *L) {
    clua_context *c = clua_ctx(L);
    /* Closes the last step: its time counts like any other step's. */
    uint64_t now = clua_now_ns();
    int64_t spent = (int64_t)((now - c->step_started_ns) * CLUA_FASTEST_INSTRUCTIONS_PER_NS);
    if (spent < 0 || spent + CLUA_STEP_SLACK > c->budget_remaining) c->slow_step = 1;
    __atomic_fetch_add(&c->progress, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&c->watched, 0, __ATOMIC_SEQ_CST);
    int stopped = c->stalled;
    c->stalled = 0;
    int tripped = c->budget_tripped;
    clua_disarm_budget(L);
    return stopped || tripped || c->slow_step;
}
