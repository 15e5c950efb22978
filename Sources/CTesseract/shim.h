// Tesseract's C API and the part of Leptonica it takes images in (libtesseract-dev, libleptonica-dev).
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>
