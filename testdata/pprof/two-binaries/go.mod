module gw
go 1.19
