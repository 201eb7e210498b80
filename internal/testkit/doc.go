// Package testkit holds no code: its sub-packages are the kits the tests share, kept apart from the
// product's internal packages (internal/memo) so that no product package seems to depend on test
// code. wpfake is a fake wp/v2 server on recorded answers; cluster runs replicas behind haproxy;
// jsontest decodes and diffs ordered JSON and reads the original's recorded answers (testdata);
// phptest finds php and WordPress' sources; rigenv reads the rig's variables.
package testkit
