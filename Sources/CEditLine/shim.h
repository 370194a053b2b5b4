// Debian's libedit (BSD-licensed) through its readline-compatible interface: the
// REPL's line editing, history and tab completion. Only the dicehost CLI imports it.
#include <stdio.h>
#include <editline/readline.h>
