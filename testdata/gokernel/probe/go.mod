module probe

go 1.26.0

require github.com/lucent-gpu/lucent v0.0.0

replace github.com/lucent-gpu/lucent => ../../..
