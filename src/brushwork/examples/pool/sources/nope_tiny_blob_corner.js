// A tiny peach smudge jammed into the upper-left corner of an otherwise empty page.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
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
  background(250, 247, 240);
  noiseSeed(3);
  brush.noStroke();
  wash("#f29a78", 220, 0.2, 0.3, 0.4);
  blob(64, 72, 40, 34, 0.5, 1);
  wash("#c0304a", 220, 0.1, 0.3, 0.4);
  brush.circle(66, 72, 8);
}
