//go:build embedded_controller

package controller
