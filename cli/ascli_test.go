package cli

// asCLIVar makes the test binary run mcpscope's main (see TestMain), so a
// test can run mcpscope as a process: send it real signals, time its
// start-up, run it as a tap.
const asCLIVar = "MCPSCOPE_TEST_AS_CLI"
