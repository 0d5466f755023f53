module github.com/predict-tools/predict

go 1.26
