package catalog

// VerifySlice lets the external tests set how many posts one periodic check compares.
var VerifySlice = &verifySlice

// VerifyBulkAt lets the external tests set from how many differing posts a check reads them in bulk.
var VerifyBulkAt = &verifyBulkAt

// BulkChunk lets the external tests set how many posts one bulk page reads.
var BulkChunk = &bulkChunk
