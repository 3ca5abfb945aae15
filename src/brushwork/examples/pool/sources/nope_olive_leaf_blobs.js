// Drab olive and khaki leaves piled in a lump at the bottom, with a grey-brown blob
// for a flower; dull, heavy and shapeless.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

// a pointed leaf from its stem end (x, y) along ang
function leaf(x, y, ang, len, wid) {
  brush.beginShape(0.8);
  for (let k = 0; k <= 10; k++) {
    const t = k / 10, w = wid * sin(PI * t) * (1 - 0.3 * t);
    brush.vertex(x + len * t * cos(ang) + w * sin(ang), y + len * t * sin(ang) - w * cos(ang));
  }
  for (let k = 9; k >= 1; k--) {
    const t = k / 10, w = wid * sin(PI * t) * (1 - 0.3 * t);
    brush.vertex(x + len * t * cos(ang) - w * sin(ang), y + len * t * sin(ang) + w * cos(ang));
  }
  brush.endShape(CLOSE);
}

// an irregular rounded wash, radius r, wobble 0..1
function blob(x, y, rx, ry, wobble, seed) {
  brush.beginShape(0.9);
  for (let k = 0; k < 12; k++) {
    const a = k * TWO_PI / 12;
    const m = 1 + wobble * (noise(seed + k * 0.5) - 0.5);
    brush.vertex(x + rx * m * cos(a), y + ry * m * sin(a));
  }
  brush.endShape(CLOSE);
}

// set colour, opacity, bleed and texture in one call
function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(226, 222, 206);
  randomSeed(291);
  noiseSeed(291);
  brush.noStroke();
  for (let i = 0; i < 9; i++) {
    wash(i % 2 ? "#6b6a3a" : "#8a7e4e", 230, 0.2, 0.3, 0.4);
    leaf(random(200, 400), random(420, 520), random(-PI, 0), random(120, 180), random(40, 60));
  }
  wash("#7a6a5e", 230, 0.3, 0.3, 0.4);
  blob(300, 330, 90, 70, 0.6, 5);
  wash("#5a4e42", 230, 0.3, 0.3, 0.4);
  blob(310, 340, 40, 30, 0.6, 9);
}
