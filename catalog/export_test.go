package catalog

// VerifySlice lets the external tests set how many posts one periodic check compares.
var VerifySlice = &verifySlice
