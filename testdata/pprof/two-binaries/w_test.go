package main
import "testing"
func TestW(t *testing.T){ for i:=0;i<3;i++ { _ = jsonWork(30000); _ = regexWork(2000); _ = fib(30) } }
