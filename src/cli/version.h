/*
 * version.h - scaler's version, in one place: `scaler --version` prints it
 * and the Makefile reads it for the man pages it installs.
 */
#ifndef SCALER_VERSION_H
#define SCALER_VERSION_H

#define SCALER_VERSION "0.2.0"

#endif
