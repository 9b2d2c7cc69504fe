package main

// signalNumber: Windows processes do not die by signals; a name here can
// only come from a foreign observation, and maps to 0 (status 128).
func signalNumber(string) int { return 0 }
