// Command botkit scaffolds Pipecat voice bots and manages platform secrets.
package main

func main() {}
