//go:build tools

// Keeps the emulator's package in this module's requirements, so that build.sh builds it at the version go.mod pins.
package tools

import _ "cloud.google.com/go/bigtable/cmd/emulator"
