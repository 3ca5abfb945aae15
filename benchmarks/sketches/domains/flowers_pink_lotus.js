// A pink lotus on dark water: pointed pink petals in layers, a yellow heart, round green pads.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function petal(x, y, ang, len, wide) {
  brush.beginShape(0.8);
  brush.vertex(x, y);
  brush.vertex(x + len * 0.55 * cos(ang - wide), y + len * 0.55 * sin(ang - wide));
  brush.vertex(x + len * cos(ang), y + len * sin(ang));
  brush.vertex(x + len * 0.55 * cos(ang + wide), y + len * 0.55 * sin(ang + wide));
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();
  wash("#5d7f8c", 150, 0.5, 0.5, 0.6);
  brush.circle(300, 430, 300);
  wash("#4f8a5a", 190, 0.35, 0.5, 0.6);
  brush.circle(140, 470, 70);
  brush.circle(470, 500, 60);
  wash("#6aa06c", 170, 0.35, 0.5, 0.6);
  brush.circle(420, 420, 45);
  const back = [-2.6, -2.0, -1.57, -1.1, -0.55];
  for (const a of back) {
    wash("#f5b8cc", 190, 0.35, 0.5, 0.6);
    petal(300, 340, a, 130, 0.3);
  }
  for (const a of [-2.3, -1.8, -1.3, -0.85]) {
    wash("#e98aa8", 180, 0.3, 0.5, 0.6);
    petal(300, 345, a, 100, 0.3);
  }
  wash("#f2cc4a", 220, 0.2, 0.4, 0.5);
  brush.circle(300, 300, 22);
}
