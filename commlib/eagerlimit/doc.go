// Package eagerlimit reads the eager limit a commlib program runs with, as
// commlib.Main configures it: the -eager flag when given, else
// COMMLIB_EAGER_LIMIT, else the default. commlib.Main and predict
// calibrate (which must measure the runtime a program gets) both read it
// here; it is not part of commlib's API for programs (its catalog of
// operations), which is why it is a package of its own.
package eagerlimit
